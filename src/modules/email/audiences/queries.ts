import { sql, type Expression, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { countRows, likePattern, readPage } from '../../../kernel/pagination.js';
import type { MemberToStore } from './member-list.js';
import type {
  AudienceView,
  CreateAudienceInput,
  ListAudiencesQuery,
  ListMembersQuery,
  MemberView,
  UpdateAudienceInput,
} from './schemas.js';
import '../tables.js';
import './tables.js';

type Db = Kysely<Tables>;

const memberCount = (eb: ExpressionBuilder<Tables, 'email_audiences'>) =>
  eb
    .selectFrom('email_audience_members')
    .select(sql<number>`count(*)::int`.as('n'))
    .whereRef('email_audience_members.audience_id', '=', 'email_audiences.id');

function audiences(db: Db) {
  return db
    .selectFrom('email_audiences')
    .select((eb) => [
      'email_audiences.id',
      'email_audiences.name',
      'email_audiences.description',
      memberCount(eb).as('member_count'),
      'email_audiences.created_by',
      'email_audiences.updated_by',
      'email_audiences.created_at',
      'email_audiences.updated_at',
    ]);
}

export async function listAudiences(
  db: Db,
  query: ListAudiencesQuery,
): Promise<{ rows: AudienceView[]; total: number }> {
  const named =
    query.q === undefined ? sql<boolean>`true` : sql<boolean>`email_audiences.name ILIKE ${likePattern(query.q)}`;
  const { field, direction } = query.sort;
  // Names sort case-insensitively (staff read `alpha` and `Beta` as neighbours).
  const order =
    field === 'name'
      ? sql`lower(email_audiences.name) ${sql.raw(direction)}`
      : sql`email_audiences.${sql.raw(field)} ${sql.raw(direction)}`;
  const { rows, total } = await readPage(db.selectFrom('email_audiences').where(named), query, () =>
    audiences(db).where(named).orderBy(order).orderBy('email_audiences.id'),
  );
  return { rows: rows as AudienceView[], total };
}

export async function findAudience(db: Db, id: string): Promise<AudienceView | undefined> {
  return (await audiences(db).where('email_audiences.id', '=', id).executeTakeFirst()) as AudienceView | undefined;
}

/** Locked to the end of the transaction: edits and member replaces of one audience queue up. */
export function lockAudience(trx: Db, id: string) {
  return trx
    .selectFrom('email_audiences')
    .select(['id', 'name', 'description'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function insertAudience(trx: Db, input: CreateAudienceInput, actorId: string) {
  return trx
    .insertInto('email_audiences')
    .values({ name: input.name, description: input.description ?? null, created_by: actorId, updated_by: actorId })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export function updateAudience(trx: Db, id: string, input: UpdateAudienceInput, actorId: string) {
  return trx
    .updateTable('email_audiences')
    .set({ name: input.name, description: input.description ?? null, updated_by: actorId, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export function touchAudience(trx: Db, id: string, actorId: string) {
  return trx
    .updateTable('email_audiences')
    .set({ updated_by: actorId, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export function deleteAudience(trx: Db, id: string) {
  return trx
    .deleteFrom('email_audiences')
    .where('id', '=', id)
    .returning(['id', 'name', 'description'])
    .executeTakeFirst();
}

export async function audienceExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('email_audiences').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The name of the audience `audienceId` names, beside another area's row (a campaign's); null: none. */
export function audienceNameOf(audienceId: Expression<string | null>) {
  return sql<
    string | null
  >`(SELECT email_audiences.name FROM email_audiences WHERE email_audiences.id = ${audienceId})`;
}

export async function countMembers(db: Db, audienceId: string): Promise<number> {
  return countRows(db.selectFrom('email_audience_members').where('audience_id', '=', audienceId));
}

// A member is mailable when its address is not suppressed and its account (if any) is active.
// The one definition every count, list and (later) campaign snapshot uses.
const MAILABLE = sql<boolean>`(email_suppressions.email IS NULL AND (users.status IS NULL OR users.status = 'active'))`;

/** The members of an audience with what decides whether they are mailable. */
function membersWithStanding(db: Db, audienceId: string) {
  return db
    .selectFrom('email_audience_members')
    .leftJoin('email_suppressions', 'email_suppressions.email', 'email_audience_members.email')
    .leftJoin('user_directory as users', 'users.id', 'email_audience_members.user_id')
    .where('email_audience_members.audience_id', '=', audienceId);
}

/** The addresses (and accounts) a campaign to this audience would mail now. */
export function mailableMembers(db: Db, audienceId: string) {
  return membersWithStanding(db, audienceId)
    .where(MAILABLE)
    .select(['email_audience_members.email', 'email_audience_members.user_id']);
}

export async function listMembers(
  db: Db,
  audienceId: string,
  query: ListMembersQuery,
): Promise<{ rows: MemberView[]; total: number }> {
  let filtered = membersWithStanding(db, audienceId);
  if (query.q !== undefined) filtered = filtered.where('email_audience_members.email', 'ilike', likePattern(query.q));
  if (query.mailable !== undefined)
    filtered = filtered.where(query.mailable ? MAILABLE : sql<boolean>`NOT ${MAILABLE}`);
  const { field, direction } = query.sort;
  return readPage(filtered, query, (matching) =>
    matching
      .select([
        'email_audience_members.id',
        'email_audience_members.email',
        'email_audience_members.user_id',
        'users.status as user_status',
        'email_suppressions.reason as suppression_reason',
        MAILABLE.as('mailable'),
        'email_audience_members.created_at',
      ])
      .orderBy(`email_audience_members.${field}`, direction)
      .orderBy('email_audience_members.id'),
  );
}

export function previewCount(db: Db, audienceId: string) {
  return membersWithStanding(db, audienceId)
    .select([
      sql<number>`count(*)::int`.as('total'),
      sql<number>`(count(*) FILTER (WHERE ${MAILABLE}))::int`.as('mailable'),
      sql<number>`(count(*) FILTER (WHERE email_suppressions.email IS NOT NULL))::int`.as('suppressed'),
      sql<number>`(count(*) FILTER (WHERE users.status IN ('banned', 'deleted')))::int`.as('deleted_users'),
    ])
    .executeTakeFirstOrThrow();
}

export function deleteMember(trx: Db, audienceId: string, memberId: string) {
  return trx
    .deleteFrom('email_audience_members')
    .where('audience_id', '=', audienceId)
    .where('id', '=', memberId)
    .returning(['id', 'email', 'user_id'])
    .executeTakeFirst();
}

/** The address of each of these users (null when the account has none); one query for any number. */
export async function userEmails(db: Db, userIds: string[]): Promise<Map<string, string | null>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_directory')
    .select(['id', 'email'])
    .where(
      'id',
      'in',
      sql<string>`(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(userIds)}::jsonb))`,
    )
    .execute();
  return new Map(rows.map((row) => [row.id, row.email]));
}

/**
 * Operation 9's write, set-based whatever the size: one statement removes the members not on the
 * new list, one adds the new ones and links kept ones to their account. Members that stay keep
 * their id and `created_at`. The whole list travels as one jsonb parameter, never a query per
 * member. An address without a `user_id` is linked to the account with that address (an active
 * one first), so a banned or deleted account's address is known as such.
 */
export async function replaceMembers(
  trx: Db,
  audienceId: string,
  members: MemberToStore[],
): Promise<{ removed: number }> {
  const list = JSON.stringify(members);
  const removed = await trx.executeQuery(
    sql`
    DELETE FROM email_audience_members
    WHERE audience_id = ${audienceId}
      AND email NOT IN (SELECT m.email FROM jsonb_to_recordset(${list}::jsonb) AS m (email text))
  `.compile(trx),
  );
  await trx.executeQuery(
    sql`
    INSERT INTO email_audience_members (audience_id, email, user_id)
    SELECT ${audienceId}::uuid, m.email, COALESCE(m.user_id, (
      SELECT users.id FROM user_directory AS users WHERE lower(users.email) = m.email
      ORDER BY users.status = 'active' DESC, users.created_at DESC, users.id LIMIT 1))
    FROM jsonb_to_recordset(${list}::jsonb) AS m (email text, user_id uuid)
    ON CONFLICT (audience_id, email) DO UPDATE SET user_id = EXCLUDED.user_id
    WHERE email_audience_members.user_id IS DISTINCT FROM EXCLUDED.user_id
  `.compile(trx),
  );
  return { removed: Number(removed.numAffectedRows ?? 0n) };
}

/** The first campaign to this audience that is under way (sending or paused); undefined: none. */
export function campaignUnderWayTo(trx: Db, audienceId: string) {
  return trx
    .selectFrom('campaign_audiences')
    .select(['id', 'status'])
    .where('audience_id', '=', audienceId)
    .where('status', 'in', ['sending', 'paused'])
    .orderBy('created_at')
    .executeTakeFirst();
}
