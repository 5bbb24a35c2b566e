import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../db/tables.js';
import { lastBeforeValueOf, recentAuditOf } from '../../kernel/audit-reads.js';
import { offsetOf, readPage } from '../../kernel/pagination.js';
import { CompiledOnce } from '../../db/compiled-once.js';
import { preparedByShape } from '../../db/prepared-shapes.js';
import { deletionOf } from './deletion.js';
import type { ListUsersQuery, UserDetail, UserSummary } from './schemas.js';
import { LIVE_SUBSCRIPTION_STATUSES, USER_SEGMENT_FIELDS, matchesSegment, type UserSegment } from './segment.js';
import './tables.js';

const RECENT_AUDIT_LIMIT = 20;

const unexpired = sql<boolean>`(role_grants.expires_at IS NULL OR role_grants.expires_at > now())`;

function summaries(db: Kysely<Tables>) {
  return db
    .selectFrom('users')
    .select((eb) => [
      'users.id',
      'users.email',
      'users.display_name',
      'users.provider',
      'users.status',
      'users.tier',
      'users.created_at',
      'users.updated_at',
      'users.last_seen_at',
      'users.deleted_at',
      eb.fn
        .coalesce(
          eb
            .selectFrom('role_grants')
            .innerJoin('role_directory', 'role_directory.id', 'role_grants.role_id')
            .select(sql<string[]>`array_agg(role_directory.key ORDER BY role_directory.key)`.as('keys'))
            .whereRef('role_grants.user_id', '=', 'users.id')
            .where(unexpired),
          sql<string[]>`'{}'::text[]`,
        )
        .as('roles'),
    ]);
}

/**
 * The users list's statements are prepared, one per shape (the filters present and the sort):
 * planning was half their database time (decisions 0081 and 0106).
 */
const USERS_LIST_SHAPE = 'users_list';

type UsersListSort = ListUsersQuery['sort'];

// Never-seen users sort after seen ones either way: "most recently seen" starts with someone.
// Emails sort case-insensitively (staff read `Eve@` and `eve@` as neighbours).
function orderingOf({ field, direction }: UsersListSort) {
  const orderings = {
    last_seen_at: sql`users.last_seen_at ${sql.raw(direction)} NULLS LAST`,
    email: sql`lower(users.email) ${sql.raw(direction)}`,
    created_at: sql`users.created_at ${sql.raw(direction)}`,
  };
  return orderings[field];
}

function orderedSummaries(db: Kysely<Tables>, query: ListUsersQuery) {
  return summaries(db)
    .where(matchesSegment(query, { defaultStatus: 'any' }))
    .orderBy(orderingOf(query.sort))
    .orderBy('users.id');
}

/**
 * The whole list's page (no filter): the staff console's first page, and the busiest staff read
 * of `npm run soak`'s mix. Its text depends on the sort alone, so it is compiled once per sort;
 * its values are the page's size and offset. The kept count rides on the page's rows: one
 * statement, one snapshot, one round trip (each round trip waits for a backend to get a core).
 */
const wholeListPages = new CompiledOnce<Tables, string, UserSummary & { total: number }>();

export async function listUsers(
  db: Kysely<Tables>,
  query: ListUsersQuery,
): Promise<{ rows: UserSummary[]; total: number }> {
  if (isWholeList(query)) {
    const { field, direction } = query.sort;
    const rows = await wholeListPages.execute(db, `${field} ${direction}`, [query.per_page, offsetOf(query)], () =>
      orderedSummaries(db, query)
        .select(sql<number>`(SELECT coalesce(sum(users), 0)::int FROM user_count_slots)`.as('total'))
        .limit(query.per_page)
        .offset(offsetOf(query))
        .withPlugin(preparedByShape(USERS_LIST_SHAPE)),
    );
    // A page past the end has no row to carry it.
    const total = rows[0]?.total ?? (await countAllUsers(db));
    return { rows: rows.map(({ total: _total, ...row }) => row as UserSummary), total };
  }
  const filtered = db.selectFrom('users').where(matchesSegment(query, { defaultStatus: 'any' }));
  const { rows, total } = await readPage(filtered, query, () => orderedSummaries(db, query), USERS_LIST_SHAPE);
  return { rows: rows as UserSummary[], total };
}

/** No filter at all: the list is every user, staff consoles' first page. */
function isWholeList(segment: UserSegment): boolean {
  return USER_SEGMENT_FIELDS.every((field) => segment[field] === undefined);
}

/** Every user, counted by migration 0039's triggers: a sum of 16 rows instead of a scan of all users. */
async function countAllUsers(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('user_count_slots')
    .select(sql<number>`coalesce(sum(users), 0)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function findUserDetail(db: Kysely<Tables>, id: string): Promise<UserDetail | undefined> {
  const user = await db
    .selectFrom('users')
    .select([
      'id',
      'email',
      'display_name',
      'provider',
      'status',
      'created_at',
      'updated_at',
      'last_seen_at',
      'tier',
      'metadata',
      'status_reason',
      'status_changed_at',
      'status_changed_by',
      'deleted_at',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
  if (user === undefined) return undefined;
  const [tier, roles, subscription, recentAudit, creditBalance, selfDeletion] = await Promise.all([
    user.tier === null
      ? undefined
      : db
          .selectFrom('plan_tier_directory')
          .select(['key', 'name', 'rank'])
          .where('key', '=', user.tier)
          .executeTakeFirst(),
    db
      .selectFrom('role_grants')
      .innerJoin('role_directory', 'role_directory.id', 'role_grants.role_id')
      .select([
        'role_directory.id as role_id',
        'role_directory.key',
        'role_directory.name',
        'role_grants.expires_at',
        'role_grants.granted_by',
        'role_grants.reason',
        'role_grants.created_at as granted_at',
      ])
      .where('role_grants.user_id', '=', id)
      .where(unexpired)
      .orderBy('role_directory.key')
      .execute(),
    db
      .selectFrom('subscription_directory')
      .select([
        'id',
        'provider',
        'status',
        'product_id',
        'provider_price_id',
        'cancel_at_period_end',
        'current_period_end',
        'created_at',
      ])
      .where('user_id', '=', id)
      .orderBy(sql`status IN (${sql.join(LIVE_SUBSCRIPTION_STATUSES.map((s) => sql.lit(s)))})`, 'desc')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
    recentAuditOf(db, { type: 'user', id }, RECENT_AUDIT_LIMIT),
    creditBalanceOf(db, id),
    user.status === 'deleted' ? selfDeletionOf(db, id) : undefined,
  ]);
  return {
    id: user.id,
    email: user.email,
    display_name: user.display_name,
    provider: user.provider,
    status: user.status,
    tier: user.tier,
    created_at: user.created_at,
    updated_at: user.updated_at,
    last_seen_at: user.last_seen_at,
    deleted_at: user.deleted_at,
    metadata: user.metadata as Record<string, unknown>,
    status_reason: user.status_reason,
    status_changed_at: user.status_changed_at,
    status_changed_by: user.status_changed_by,
    deletion: deletionOf(user, selfDeletion),
    tier_detail: tier ?? null,
    roles,
    subscription: subscription ?? null,
    credit_balance: creditBalance,
    recent_audit: recentAudit,
  };
}

/** The user's credit balance, from the view billing credits publishes (0063); 0 for a user without entries. */
async function creditBalanceOf(db: Kysely<Tables>, userId: string): Promise<number> {
  const row = await db.selectFrom('credit_balances').select('balance').where('user_id', '=', userId).executeTakeFirst();
  return Number(row?.balance ?? 0);
}

/** The player's own deletion request (the account-deletion area's row): which kind a deletion is. */
export function selfDeletionOf(db: Kysely<Tables>, userId: string) {
  return db
    .selectFrom('deletion_request_directory')
    .select(['status', 'hard_delete_at'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * The status a user had before staff soft-deleted them, as that deletion's audit row keeps it
 * (`before.status`); undefined when no such row is left.
 */
export async function statusBeforeSoftDelete(db: Kysely<Tables>, userId: string): Promise<UserStatus | undefined> {
  return (await lastBeforeValueOf(db, { type: 'user', id: userId }, 'users.soft_delete', 'status')) as
    | UserStatus
    | undefined;
}

/** The user row locked for the rest of the transaction: lifecycle changes on one user queue up. */
export function lockUser(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findUser(db: Kysely<Tables>, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every permission key these users' unexpired grants carry (wildcards as stored), together. */
export async function grantedPermissionKeys(db: Kysely<Tables>, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('role_grants')
    .innerJoin('role_permission_keys', 'role_permission_keys.role_id', 'role_grants.role_id')
    .select('role_permission_keys.permission_key')
    .distinct()
    .where('role_grants.user_id', '=', sql<string>`ANY(${userIds}::uuid[])`)
    .where(unexpired)
    .orderBy('role_permission_keys.permission_key')
    .execute();
  return rows.map((row) => row.permission_key);
}

/**
 * Is this user the only active owner (migration 0044's view)? Not the guard (the database refuses
 * the commit that would leave no owner): an early answer, before an identity-provider call that
 * would otherwise be made for a change the database then refuses.
 */
export async function isLastActiveOwner(db: Kysely<Tables>, userId: string): Promise<boolean> {
  const owners = await db.selectFrom('active_owners').select('user_id').limit(2).execute();
  return owners.length === 1 && owners[0]?.user_id === userId;
}

export function tierExists(db: Kysely<Tables>, key: string) {
  return db.selectFrom('plan_tier_directory').select('key').where('key', '=', key).executeTakeFirst();
}

export interface ProfileChanges {
  display_name?: string | null;
  tier?: string | null;
  /** JSON text. */
  metadata?: string;
}

export async function updateProfile(trx: Kysely<Tables>, id: string, changes: ProfileChanges): Promise<void> {
  await trx
    .updateTable('users')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Tokens issued up to now are refused from the next request. */
export async function endAllSessions(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.updateTable('users').set({ tokens_valid_after: new Date() }).where('id', '=', id).execute();
}
export interface StatusChange {
  to: UserStatus;
  reason: string | null;
  by: string | null;
  at: Date;
}

export async function setStatus(trx: Kysely<Tables>, id: string, change: StatusChange): Promise<void> {
  await trx
    .updateTable('users')
    .set({
      status: change.to,
      status_reason: change.reason,
      status_changed_at: change.at,
      status_changed_by: change.by,
      deleted_at: change.to === 'deleted' ? change.at : null,
      updated_at: change.at,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Deletes the user row; every table holding a user's rows references users(id) ON DELETE CASCADE (a test checks it).
 */
export async function deleteUserRow(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.deleteFrom('users').where('id', '=', id).execute();
}

/** Remembers that this id was erased (once). */
export async function rememberErased(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx
    .insertInto('erased_users')
    .values({ id })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Users whose email is this one, ignoring case (users_email_lower_idx; an email may be on more than one row). */
export function findUsersByEmail(db: Kysely<Tables>, email: string, limit: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'status'])
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
