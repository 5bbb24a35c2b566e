import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { isoDateTime } from '../../lib/instant.js';
import type { Tables } from '../../db/tables.js';
import { likePattern } from '../../kernel/pagination.js';

/**
 * The spec's broadcast segment, which is also the users list's filter set: one definition of
 * the fields and one SQL builder, used by `GET /v1/admin/users` and by the broadcast route.
 */

export const USER_STATUSES = ['active', 'banned', 'deleted'] as const;
/** Subscription states that count as "has a subscription": the player is (or may soon be) paying. */
export const LIVE_SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due'] as const;

const dateTime = isoDateTime();

const segmentFields = {
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Matches email or display name (case-insensitive substring), or the exact user id.'),
  status: z.enum(USER_STATUSES).optional(),
  tier: z.string().min(1).max(32).optional().describe('Plan tier key.'),
  role: z.string().min(1).max(48).optional().describe('Role key the user holds an unexpired grant of.'),
  provider: z.string().min(1).max(32).optional().describe('Sign-in provider the account was created with.'),
  created_from: dateTime.optional(),
  created_to: dateTime.optional(),
  last_seen_from: dateTime.optional(),
  last_seen_to: dateTime.optional(),
};

const hasSubscriptionDescription = 'Whether the user has a trialing, active or past-due subscription.';

/** The segment in a JSON body (the broadcast): `has_subscription` is a real boolean. */
export const userSegmentBody = z
  .object({
    ...segmentFields,
    has_subscription: z.boolean().optional().describe(hasSubscriptionDescription),
  })
  .strict();

/** The same fields in a query string: `has_subscription` is the text `true` or `false`. */
export const userSegmentQueryFields = {
  ...segmentFields,
  has_subscription: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe(hasSubscriptionDescription),
};

export type UserSegment = z.infer<typeof userSegmentBody>;
/** Every field of a segment: a segment with none of them set is every user. */
export const USER_SEGMENT_FIELDS = Object.keys(userSegmentBody.shape) as (keyof UserSegment)[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SegmentOptions {
  /**
   * Which users an unset `status` means: `active` for a broadcast (spec: an empty segment is
   * every active user), `any` for the staff list, which shows banned and deleted accounts too.
   */
  defaultStatus: 'active' | 'any';
}

/** The segment as one WHERE condition on `users`; unset fields add nothing. */
export function matchesSegment(segment: UserSegment, options: SegmentOptions) {
  return (eb: ExpressionBuilder<Tables, 'users'>): Expression<SqlBool> => {
    const conditions: Expression<SqlBool>[] = [];
    const status = segment.status ?? (options.defaultStatus === 'active' ? 'active' : undefined);
    if (status !== undefined) conditions.push(eb('users.status', '=', status));
    if (segment.q !== undefined) {
      const pattern = likePattern(segment.q);
      const text = [eb('users.email', 'ilike', pattern), eb('users.display_name', 'ilike', pattern)];
      if (UUID.test(segment.q)) text.push(eb('users.id', '=', segment.q.toLowerCase()));
      conditions.push(eb.or(text));
    }
    if (segment.tier !== undefined) conditions.push(eb('users.tier', '=', segment.tier));
    if (segment.provider !== undefined) conditions.push(eb('users.provider', '=', segment.provider));
    if (segment.role !== undefined) conditions.push(holdsRole(eb, segment.role));
    if (segment.has_subscription !== undefined) {
      const live = hasLiveSubscription(eb);
      conditions.push(segment.has_subscription ? live : eb.not(live));
    }
    if (segment.created_from !== undefined)
      conditions.push(eb('users.created_at', '>=', new Date(segment.created_from)));
    if (segment.created_to !== undefined) conditions.push(eb('users.created_at', '<=', new Date(segment.created_to)));
    if (segment.last_seen_from !== undefined)
      conditions.push(eb('users.last_seen_at', '>=', new Date(segment.last_seen_from)));
    if (segment.last_seen_to !== undefined)
      conditions.push(eb('users.last_seen_at', '<=', new Date(segment.last_seen_to)));
    return eb.and(conditions);
  };
}

function holdsRole(eb: ExpressionBuilder<Tables, 'users'>, roleKey: string): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('role_grants')
      .innerJoin('role_directory', 'role_directory.id', 'role_grants.role_id')
      .select(sql`1`.as('one'))
      .whereRef('role_grants.user_id', '=', 'users.id')
      .where('role_directory.key', '=', roleKey)
      .where((inner) =>
        inner.or([inner('role_grants.expires_at', 'is', null), inner('role_grants.expires_at', '>', sql<Date>`now()`)]),
      ),
  );
}

function hasLiveSubscription(eb: ExpressionBuilder<Tables, 'users'>): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('subscription_directory')
      .select(sql`1`.as('one'))
      .whereRef('subscription_directory.user_id', '=', 'users.id')
      .where('subscription_directory.status', 'in', [...LIVE_SUBSCRIPTION_STATUSES]),
  );
}
