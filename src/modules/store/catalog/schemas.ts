import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { httpUrlProblem } from '../../../lib/url-field.js';

// ---- Achievement definitions (spec "Achievement definition", operation 1) ----

export const ACHIEVEMENT_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

const name = z.string().trim().min(1).max(100);
const description = z.string().max(500).nullable();
/** A path under the site's assets (`icons/win.png`, `/icons/win.png`): plain characters only. */
const ASSET_PATH = /^\/?[A-Za-z0-9._~-][A-Za-z0-9._~/-]*$/;
/** An asset path or an http(s) URL: never a `javascript:` or `data:` target. */
const iconPath = z
  .string()
  .max(500)
  .refine(
    (value) => ASSET_PATH.test(value) || httpUrlProblem(value) === undefined,
    'must be an asset path or an absolute http(s) URL',
  )
  .nullable();
const rewardCredits = z.number().int().min(0).max(1_000_000);
const sortOrder = z.number().int().min(-10_000).max(10_000);

export const achievementIdParams = z.object({ id: z.guid() });

export const achievementBody = z
  .object({
    id: z.guid(),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    icon_path: z.string().nullable(),
    reward_credits: z.number().int(),
    is_active: z.boolean(),
    sort_order: z.number().int(),
    created_by: z.guid().nullable(),
    updated_by: z.guid().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({
    id: 'Achievement',
    description: 'An achievement definition: its key, name, icon and the credits it rewards.',
  });
export type AchievementView = z.infer<typeof achievementBody>;

export const listAchievementsQuery = pageQuery(['sort_order', 'name', 'created_at'], {
  field: 'sort_order',
  direction: 'asc',
}).extend({
  is_active: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('Only active (`true`) or inactive (`false`) definitions.'),
});
export type ListAchievementsQuery = z.infer<typeof listAchievementsQuery>;
export const achievementsPage = pagedResponse(achievementBody);

export const createAchievementBody = z
  .object({
    key: z
      .string()
      .regex(ACHIEVEMENT_KEY_PATTERN, `key must match ${ACHIEVEMENT_KEY_PATTERN.source}`)
      .describe('Unique; immutable after creation.'),
    name,
    description: description.optional(),
    icon_path: iconPath.optional(),
    reward_credits: rewardCredits.default(0),
    is_active: z.boolean().default(true),
    sort_order: sortOrder.default(0),
  })
  .strict();
export type CreateAchievementInput = z.infer<typeof createAchievementBody>;

export const ACHIEVEMENT_FIELDS = [
  'name',
  'description',
  'icon_path',
  'reward_credits',
  'is_active',
  'sort_order',
] as const;

/** Operation 1: any of the fields, at least one; `null` clears description and icon_path. */
export const updateAchievementBody = z
  .object({
    // Named so the refusal points at `key` with a reason, not at an anonymous unknown field.
    key: z.never({ error: 'key is immutable after creation' }).optional().describe('Refused: a key cannot change.'),
    name: name.optional(),
    description: description.optional(),
    icon_path: iconPath.optional(),
    reward_credits: rewardCredits.optional(),
    is_active: z.boolean().optional(),
    sort_order: sortOrder.optional(),
  })
  .strict()
  .refine((body) => ACHIEVEMENT_FIELDS.some((field) => body[field] !== undefined), {
    error: `provide at least one of ${ACHIEVEMENT_FIELDS.join(', ')}`,
  })
  .meta({ examples: [{ name: 'First Victory', reward_credits: 150, is_active: true }] });
export type UpdateAchievementInput = Omit<z.infer<typeof updateAchievementBody>, 'key'>;

export const deleteAchievementQuery = z.object({
  reason: z.string().max(300).optional().describe('Kept in the audit row.'),
});

// ---- Referral rules: one ruleset for the whole platform ----

export const QUALIFYING_EVENTS = ['signup', 'first_purchase'] as const;

export const referralRulesBody = z
  .object({
    referrer_reward_credits: z.number().int().describe('Credits the inviting user receives per qualified referral.'),
    referee_reward_credits: z.number().int().describe('Credits the invited user receives when they qualify.'),
    qualifying_event: z
      .enum(QUALIFYING_EVENTS)
      .describe('`signup`: the referee signs up; `first_purchase`: the referee completes a first payment.'),
    qualify_within_days: z
      .number()
      .int()
      .nullable()
      .describe('Days after signup the referee has to qualify; null: no limit.'),
    max_rewards_per_referrer: z
      .number()
      .int()
      .nullable()
      .describe('Referrer rewards granted at most this many times; null: no cap.'),
    is_active: z.boolean(),
    version: z.number().int().describe('Rises by one with every saved change; 0 until first saved.'),
    updated_by: z.guid().nullable(),
    updated_at: z.date().nullable().describe('Null until first saved.'),
  })
  .meta({ id: 'ReferralRules', description: 'The referral ruleset: what inviting and being invited earn, and when.' });
export type ReferralRulesView = z.infer<typeof referralRulesBody>;

const credits = z.number().int().min(0).max(1_000_000);

/** The whole ruleset (PUT replaces it); the optional fields default to "no limit". */
export const putReferralRulesBody = z
  .object({
    referrer_reward_credits: credits,
    referee_reward_credits: credits,
    qualifying_event: z.enum(QUALIFYING_EVENTS),
    qualify_within_days: z.number().int().min(1).max(365).nullable().default(null),
    max_rewards_per_referrer: z.number().int().min(1).max(1_000_000).nullable().default(null),
    is_active: z.boolean(),
    expected_version: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The `version` the change is based on; a newer stored version is 409 `conflict`.'),
  })
  .strict();
export type PutReferralRulesInput = z.infer<typeof putReferralRulesBody>;
