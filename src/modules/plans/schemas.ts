import { z } from 'zod';

// The plans group writes JSON in camelCase, as the spec shows it (`isActive`, `rulesetKey`).

export const RULESET_KEY_PATTERN = /^[a-z][a-z0-9_-]{0,47}$/;
export const TIER_KEY_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
/** The spec sets only a minimum for `rank`; the column is a PostgreSQL integer. */
const MAX_RANK = 2_147_483_647;

const name = z.string().trim().min(1).max(100);
const description = z.string().max(500);

/** Operation 8: the ruleset as a whole (an upsert replaces it); omitted fields take their defaults. */
export const upsertRulesetBody = z
  .object({
    key: z
      .string()
      .regex(RULESET_KEY_PATTERN, `key must match ${RULESET_KEY_PATTERN.source}`)
      .describe('Identifies the ruleset: an existing key is updated, a new one created.'),
    name,
    description: description.optional().describe('Omitted: no description.'),
    limits: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('Free-form, read by the session service (for example `pool_id`, `max_fps`).'),
    isActive: z.boolean().default(true),
  })
  .strict()
  .meta({
    examples: [
      {
        key: 'standard',
        name: 'Standard',
        description: '1080p at 60 fps on the shared pool.',
        limits: { pool_id: 'eu-shared', max_fps: 60 },
        isActive: true,
      },
    ],
  });
export type UpsertRulesetInput = z.infer<typeof upsertRulesetBody>;

export const rulesetBody = z.object({
  id: z.guid(),
  key: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  limits: z.record(z.string(), z.unknown()),
  isActive: z.boolean(),
  tierCount: z.number().int().describe('Tiers using this ruleset.'),
  updatedBy: z.guid().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type RulesetView = z.infer<typeof rulesetBody>;
export const rulesetsBody = z.object({ data: z.array(rulesetBody) }).describe('The plan rulesets.');

export const listRulesetsQuery = z.object({
  isActive: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('Only active (`true`) or inactive (`false`) rulesets.'),
});
export type ListRulesetsQuery = z.infer<typeof listRulesetsQuery>;

/** Operation 13: the tier as a whole (an upsert replaces it). */
export const upsertTierBody = z
  .object({
    key: z
      .string()
      .regex(TIER_KEY_PATTERN, `key must match ${TIER_KEY_PATTERN.source}`)
      .describe('Identifies the tier: an existing key is updated, a new one created.'),
    name,
    rank: z.number().int().min(0).max(MAX_RANK).describe('Order of tiers, lowest first.'),
    rulesetKey: z.string().min(1).max(48).describe('Key of an existing ruleset (422 `invalid_request` otherwise).'),
    description: description.optional().describe('Omitted: no description.'),
  })
  .strict()
  .meta({
    examples: [{ key: 'gold', name: 'Gold', rank: 2, rulesetKey: 'standard', description: 'Priority queue, 1440p.' }],
  });
export type UpsertTierInput = z.infer<typeof upsertTierBody>;

export const tierBody = z.object({
  id: z.guid(),
  key: z.string(),
  name: z.string(),
  rank: z.number().int(),
  rulesetKey: z.string(),
  description: z.string().nullable(),
  updatedBy: z.guid().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type TierView = z.infer<typeof tierBody>;
export const tiersBody = z.object({ data: z.array(tierBody) }).describe('The plan tiers.');

export const listTiersQuery = z.object({
  rulesetKey: z.string().min(1).max(48).optional().describe('Only the tiers of this ruleset.'),
});
export type ListTiersQuery = z.infer<typeof listTiersQuery>;
