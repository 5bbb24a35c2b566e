import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { asRead } from '../../lib/split-pool.js';
import { countRows, escapeLike, likePattern, offsetOf } from '../../kernel/pagination.js';
import { CompiledOnce } from '../../db/compiled-once.js';
import { preparedByShape } from '../../db/prepared-shapes.js';
import { auditFilters, type AuditFilters, type ListAuditQuery } from './schemas.js';
import './tables.js';

/** How many values each facet lists (largest counts first). */
const FACET_LIMIT = 50;

/** `roles.*` as a LIKE pattern (its own `%`, `_` and `\` taken literally), or the exact action. */
function actionMatch(action: string): { op: 'like' | '='; value: string } {
  return action.endsWith('*')
    ? { op: 'like', value: `${escapeLike(action.slice(0, -1))}%` }
    : { op: '=', value: action };
}

function filterConditions(eb: ExpressionBuilder<Tables, 'audit_log'>, filters: AuditFilters): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filters.actor_id) conditions.push(eb('audit_log.actor_id', '=', filters.actor_id));
  if (filters.action) {
    const { op, value } = actionMatch(filters.action);
    conditions.push(eb('audit_log.action', op, value));
  }
  if (filters.target_type) conditions.push(eb('audit_log.target_type', '=', filters.target_type));
  if (filters.target_id) conditions.push(eb('audit_log.target_id', '=', filters.target_id));
  if (filters.from) conditions.push(eb('audit_log.created_at', '>=', new Date(filters.from)));
  if (filters.to) conditions.push(eb('audit_log.created_at', '<', new Date(filters.to)));
  if (filters.q) {
    const pattern = likePattern(filters.q);
    conditions.push(
      eb.or([
        eb('audit_log.action', 'ilike', pattern),
        eb('audit_log.target_id', 'ilike', pattern),
        eb('audit_log.reason', 'ilike', pattern),
        eb('audit_log.request_id', 'ilike', pattern),
      ]),
    );
  }
  return eb.and(conditions);
}

/**
 * The group (the part before the first dot) every action matching a `<group>.…*` prefix has,
 * or undefined when the filter names none.
 */
function actionGroupOf(filters: AuditFilters): string | undefined {
  if (!filters.action?.endsWith('*')) return undefined;
  const prefix = filters.action.slice(0, -1);
  const dot = prefix.indexOf('.');
  return dot === -1 ? undefined : prefix.slice(0, dot);
}

/** `target_id` as a uuid when it is one (a key or a number is not): the join then uses the primary key. */
const TARGET_UUID = sql`CASE WHEN audit_log.target_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  THEN audit_log.target_id::uuid END`;

/** A user target's email (or display name) and a role target's name: staff read names, not ids. */
const TARGET_LABEL = sql<string | null>`CASE audit_log.target_type
  WHEN 'user' THEN (SELECT coalesce(target_user.email, target_user.display_name) FROM user_directory AS target_user
                     WHERE target_user.id = ${TARGET_UUID})
  WHEN 'role' THEN (SELECT target_role.name FROM role_directory AS target_role WHERE target_role.id = ${TARGET_UUID})
  END`;

const LIST_COLUMNS = [
  'audit_log.id',
  'audit_log.created_at',
  'audit_log.actor_id',
  'users.email as actor_email',
  'users.display_name as actor_name',
  TARGET_LABEL.as('target_label'),
  'audit_log.action',
  'audit_log.target_type',
  'audit_log.target_id',
  'audit_log.request_id',
  'audit_log.ip',
  'audit_log.user_agent',
  'audit_log.reason',
  'audit_log.summary',
] as const;

/**
 * The audit list's page and count are prepared, one statement per shape (the filters present):
 * planning was half their database time (decisions 0081 and 0106).
 */
const AUDIT_LIST_SHAPE = 'audit_list';

/** The list's page: its rows in order, each with its actor's and target's names. */
function auditPage(db: Kysely<Tables>, query: ListAuditQuery) {
  const filtered = db.selectFrom('audit_log').where((eb) => filterConditions(eb, query));
  const direction = query.sort.direction;
  const group = actionGroupOf(query);
  // A group filter (`users.*`): its matches are usually old and every newer row of other actions
  // comes first in audit_log_created_idx, so a page read there would walk them all, slower with
  // every newer row. Filtering on the group too (implied by the prefix) finds the page's ids in
  // audit_log_action_group_idx, index-only and in page order (migration 0037). The ids are asked
  // for alone because only then does the planner keep that index after an ANALYZE; in one
  // statement it may go back to the walk. The figure: the audit list row of bench/README.md
  // (`npm run bench -- --only audit`), and its p99 under `npm run soak`.
  const page =
    group === undefined
      ? filtered.limit(query.per_page).offset(offsetOf(query))
      : db
          .selectFrom('audit_log')
          .where(
            'audit_log.id',
            'in',
            filtered
              .where(sql<string>`split_part(audit_log.action, '.', 1)`, '=', group)
              .select('audit_log.id')
              .orderBy('audit_log.created_at', direction)
              .orderBy('audit_log.id', direction)
              .limit(query.per_page)
              .offset(offsetOf(query)),
          );
  return page
    .leftJoin('user_directory as users', 'users.id', 'audit_log.actor_id')
    .select(LIST_COLUMNS)
    .orderBy('audit_log.created_at', direction)
    .orderBy('audit_log.id', direction)
    .withPlugin(preparedByShape(AUDIT_LIST_SHAPE));
}

type AuditPageRow = Awaited<ReturnType<ReturnType<typeof auditPage>['execute']>>[number];

/**
 * The console's log pages, filtered by action alone or not at all: their text depends only on
 * how the action matches (none, `=`, a prefix and its group) and the direction, so each is built
 * and compiled once (src/db/compiled-once.ts); their values are the action's, its group, the
 * page's size and offset, in the statement's order.
 */
const actionOnlyPages = new CompiledOnce<Tables, string, AuditPageRow>();

function readAuditPage(db: Kysely<Tables>, query: ListAuditQuery): Promise<AuditPageRow[]> {
  if (NON_ACTION_FILTERS.some((field) => query[field] !== undefined)) return auditPage(db, query).execute();
  const match = query.action === undefined ? undefined : actionMatch(query.action);
  const group = actionGroupOf(query);
  const choice = `${match?.op ?? 'all'} ${group === undefined ? 'walk' : 'group'} ${query.sort.direction}`;
  const values = [
    ...(match === undefined ? [] : [match.value]),
    ...(group === undefined ? [] : [group]),
    query.per_page,
    offsetOf(query),
  ];
  return actionOnlyPages.execute(db, choice, values, () => auditPage(db, query));
}

export async function listAuditEvents(db: Kysely<Tables>, query: ListAuditQuery) {
  const [rows, total] = await Promise.all([readAuditPage(db, query), countAuditEvents(db, query)]);
  return { rows: rows.map((row) => ({ ...row, summary: row.summary as Record<string, unknown> })), total };
}

/**
 * Filters other than the action, from the schema itself (a filter added later is one of them):
 * with none of them set, migration 0040's kept counts give the total.
 */
const NON_ACTION_FILTERS = (Object.keys(auditFilters.shape) as (keyof AuditFilters)[]).filter(
  (field) => field !== 'action',
);

/**
 * The entries matching the filters. Filtered by action alone, or not at all (the console's log
 * pages), a sum of migration 0040's per-action counts (16 slots of one count per action, whatever
 * the log's size) instead of a count of every match. Otherwise a count of the matches (an
 * index-only scan of the prefix on audit_log_action_prefix_idx when the action is one of them).
 */
async function countAuditEvents(db: Kysely<Tables>, filters: AuditFilters): Promise<number> {
  if (NON_ACTION_FILTERS.some((field) => filters[field] !== undefined)) {
    return countRows(
      db.selectFrom('audit_log').where((eb) => filterConditions(eb, filters)),
      AUDIT_LIST_SHAPE,
    );
  }
  const match = filters.action ? actionMatch(filters.action) : undefined;
  const matching =
    match === undefined ? sql`true` : sql`counted.key ${sql.raw(match.op === 'like' ? 'LIKE' : '=')} ${match.value}`;
  const { rows } = await asRead(sql<{ n: number }>`
    SELECT coalesce(sum(counted.value::bigint), 0)::int AS n
      FROM audit_count_slots, jsonb_each_text(audit_count_slots.actions) AS counted
     WHERE ${matching}`)
    .withPlugin(preparedByShape(`${AUDIT_LIST_SHAPE}_kept_count`))
    .execute(db);
  return rows[0]?.n ?? 0;
}

export async function auditFacets(db: Kysely<Tables>, filters: AuditFilters) {
  const filtered = db.selectFrom('audit_log').where((eb) => filterConditions(eb, filters));
  const count = sql<number>`count(*)::int`;
  const [total, actions, actors, targetTypes] = await Promise.all([
    countAuditEvents(db, filters),
    filtered
      .select(['audit_log.action as value', count.as('count')])
      .groupBy('audit_log.action')
      .orderBy('count', 'desc')
      .orderBy('value')
      .limit(FACET_LIMIT)
      .execute(),
    filtered
      .leftJoin('user_directory as users', 'users.id', 'audit_log.actor_id')
      .select(['audit_log.actor_id as value', sql<string | null>`max(users.email)`.as('email'), count.as('count')])
      .groupBy('audit_log.actor_id')
      .orderBy('count', 'desc')
      .orderBy('value')
      .limit(FACET_LIMIT)
      .execute(),
    filtered
      .select(['audit_log.target_type as value', count.as('count')])
      .groupBy('audit_log.target_type')
      .orderBy('count', 'desc')
      .orderBy('value')
      .limit(FACET_LIMIT)
      .execute(),
  ]);
  return { total, actions, actors, target_types: targetTypes };
}

/** Where an export stopped: the last row's exact time (microseconds, as text) and id. */
export interface AuditExportCursor {
  createdAt: string;
  id: string;
}

/** The export's window: from `since` (inclusive) to `until` (exclusive), each an ISO 8601 time with its zone. */
export interface AuditExportRange {
  since: string | undefined;
  until: string;
}

/** created_at to the microsecond, in UTC: what a cursor resumes from exactly (a JS Date keeps milliseconds only). */
const exactCreatedAt = sql<string>`to_char(audit_log.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function inRange(eb: ExpressionBuilder<Tables, 'audit_log'>, range: AuditExportRange): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb('audit_log.created_at', '<', sql<Date>`${range.until}::timestamptz`)];
  if (range.since !== undefined)
    conditions.push(eb('audit_log.created_at', '>=', sql<Date>`${range.since}::timestamptz`));
  return eb.and(conditions);
}

/**
 * The next `limit` entries of the window after `after`, oldest first: a keyset read on
 * audit_log_created_idx, so each batch costs the same however far the export has gone and no
 * batch holds more than `limit` rows in memory.
 */
export function auditExportBatch(
  db: Kysely<Tables>,
  range: AuditExportRange,
  after: AuditExportCursor | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('audit_log')
    .leftJoin('user_directory as users', 'users.id', 'audit_log.actor_id')
    .select([
      'audit_log.id',
      exactCreatedAt.as('created_at'),
      'audit_log.actor_id',
      'users.email as actor_email',
      'audit_log.action',
      'audit_log.target_type',
      'audit_log.target_id',
      'audit_log.request_id',
      'audit_log.ip',
      'audit_log.user_agent',
      'audit_log.reason',
      'audit_log.summary',
    ])
    .where((eb) => inRange(eb, range));
  if (after !== undefined) {
    query = query.where(
      sql<boolean>`(audit_log.created_at, audit_log.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
    );
  }
  return query.orderBy('audit_log.created_at').orderBy('audit_log.id').limit(limit).execute();
}

/** How many entries the window holds (for a progress bar's end). */
export function countAuditExport(db: Kysely<Tables>, range: AuditExportRange): Promise<number> {
  return countRows(db.selectFrom('audit_log').where((eb) => inRange(eb, range)));
}
