import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../kernel/pagination.js';
import { USER_STATUSES, userSegmentQueryFields } from './segment.js';

export const userIdParams = z.object({ id: z.guid() });

export const listUsersQuery = pageQuery(['created_at', 'last_seen_at', 'email'], {
  field: 'created_at',
  direction: 'desc',
}).extend(userSegmentQueryFields);
export type ListUsersQuery = z.infer<typeof listUsersQuery>;

export const userSummary = z.object({
  id: z.guid(),
  email: z.string().nullable(),
  display_name: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.enum(USER_STATUSES),
  tier: z.string().nullable().describe('Plan tier key; null: no tier.'),
  roles: z.array(z.string()).describe('Keys of the roles the user holds an unexpired grant of.'),
  created_at: z.date(),
  updated_at: z.date(),
  last_seen_at: z.date().nullable(),
  deleted_at: z.date().nullable(),
});
export type UserSummary = z.infer<typeof userSummary>;
export const usersPage = pagedResponse(userSummary);

const roleGrant = z.object({
  role_id: z.guid(),
  key: z.string(),
  name: z.string(),
  expires_at: z.date().nullable(),
  granted_by: z.guid().nullable(),
  reason: z.string().nullable(),
  granted_at: z.date(),
});

const subscriptionSummary = z.object({
  id: z.guid(),
  provider: z.string(),
  status: z.string(),
  product_id: z.guid().nullable(),
  provider_price_id: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  current_period_end: z.date().nullable(),
  created_at: z.date(),
});

const auditEntry = z.object({
  id: z.guid(),
  created_at: z.date(),
  action: z.string(),
  actor_id: z.guid().nullable(),
  reason: z.string().nullable(),
});

export const userDetail = userSummary
  .omit({ roles: true })
  .extend({
    metadata: z.record(z.string(), z.unknown()),
    status_reason: z.string().nullable().describe('The reason given with the last ban, unban or deletion.'),
    status_changed_at: z.date().nullable(),
    status_changed_by: z.guid().nullable(),
    deletion: z
      .object({
        by: z
          .enum(['self', 'staff'])
          .describe(
            '`self`: the player confirmed their own deletion (`POST /v1/me/delete/confirm`); `staff`: a soft ' +
              'delete (operation 2).',
          ),
        restorable_until: z
          .date()
          .nullable()
          .describe(
            'Until when `POST /v1/admin/users/{id}/restore` brings the account back: a self-deletion is erased ' +
              'then; a staff deletion stays, no longer restorable. Null: no deletion time recorded, not ' +
              'restorable.',
          ),
      })
      .nullable()
      .describe('Which kind of deletion holds the account; null unless its status is `deleted`.'),
    tier_detail: z.object({ key: z.string(), name: z.string(), rank: z.number().int() }).nullable(),
    roles: z.array(roleGrant).describe('Unexpired role grants.'),
    subscription: subscriptionSummary
      .nullable()
      .describe(
        'The most recent live (trialing, active, past-due) subscription, else the most recent one; null: never ' +
          'subscribed.',
      ),
    credit_balance: z.number().int().describe("The sum of the user's credit ledger."),
    recent_audit: z.array(auditEntry).describe('The latest audit entries about this user, newest first (at most 20).'),
  })
  // A named component of the OpenAPI document (`#/components/schemas/User`), referenced where it is answered.
  .meta({
    id: 'User',
    description: 'A user account as staff see it: status, roles, subscription, credits and recent audit.',
  });
export type UserDetail = z.infer<typeof userDetail>;

export const identityAccountBody = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    providers: z.array(z.string()),
    banned_until: z.string().nullable(),
    email_confirmed_at: z.string().nullable(),
    last_sign_in_at: z.string().nullable(),
    created_at: z.string().nullable(),
  })
  .meta({ id: 'IdentityAccount', description: "The identity provider's record of a user." });

export const updateUserBody = z
  .object({
    display_name: z.string().trim().min(1).max(100).nullable().optional(),
    tier: z.string().min(1).max(32).nullable().optional().describe('An existing plan tier key; null removes the tier.'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Replaces the whole metadata object.'),
    reason: z.string().max(500).optional().describe('Kept in the audit entry.'),
  })
  .strict()
  .refine((body) => body.display_name !== undefined || body.tier !== undefined || body.metadata !== undefined, {
    error: 'provide at least one of display_name, tier, metadata',
  });
export type UpdateUserInput = z.infer<typeof updateUserBody>;

const reason = z.string().min(3).max(500);

export const banUserBody = z.object({ reason }).strict();
export const unbanUserBody = z.object({ reason: reason.optional() }).strict();
export const signOutUserBody = z
  .object({
    session_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("End only this sign-in session (the token's `session_id` claim); omitted: every session."),
    reason: reason.optional(),
  })
  .strict();
export type SignOutUserInput = z.infer<typeof signOutUserBody>;

/** Operation 2: a JSON body despite DELETE. */
export const deleteUserBody = z
  .object({
    reason,
    hard: z
      .boolean()
      .default(false)
      .describe('true: remove the user and every row that belongs to them, irreversibly.'),
  })
  .strict()
  .meta({ examples: [{ reason: 'Account closure requested by the player (ticket 4812).', hard: false }] });
export type DeleteUserInput = z.infer<typeof deleteUserBody>;
