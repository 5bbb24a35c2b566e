import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { countRows, likePattern, offsetOf } from '../../kernel/pagination.js';
import type { AuditFilters, ListAuditQuery } from './schemas.js';

/** How many values each facet lists (largest counts first). */
const FACET_LIMIT = 50;

function filterConditions(eb: ExpressionBuilder<Tables, 'audit_log'>, filters: AuditFilters): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filters.actor_id) conditions.push(eb('audit_log.actor_id', '=', filters.actor_id));
  if (filters.action) {
    conditions.push(filters.action.endsWith('*')
      ? eb('audit_log.action', 'like', `${filters.action.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
      : eb('audit_log.action', '=', filters.action));
  }
  if (filters.target_type) conditions.push(eb('audit_log.target_type', '=', filters.target_type));
  if (filters.target_id) conditions.push(eb('audit_log.target_id', '=', filters.target_id));
  if (filters.from) conditions.push(eb('audit_log.created_at', '>=', new Date(filters.from)));
  if (filters.to) conditions.push(eb('audit_log.created_at', '<', new Date(filters.to)));
  if (filters.q) {
    const pattern = likePattern(filters.q);
    conditions.push(eb.or([
      eb('audit_log.action', 'ilike', pattern),
      eb('audit_log.target_id', 'ilike', pattern),
      eb('audit_log.reason', 'ilike', pattern),
      eb('audit_log.request_id', 'ilike', pattern),
    ]));
  }
  return eb.and(conditions);
}

export async function listAuditEvents(db: Kysely<Tables>, query: ListAuditQuery) {
  const filtered = db.selectFrom('audit_log').where((eb) => filterConditions(eb, query));
  const [rows, total] = await Promise.all([
    filtered
      .leftJoin('users', 'users.id', 'audit_log.actor_id')
      .select([
        'audit_log.id', 'audit_log.created_at', 'audit_log.actor_id', 'users.email as actor_email', 'audit_log.action',
        'audit_log.target_type', 'audit_log.target_id', 'audit_log.request_id', 'audit_log.ip', 'audit_log.user_agent',
        'audit_log.reason', 'audit_log.summary',
      ])
      .orderBy('audit_log.created_at', query.sort.direction)
      .orderBy('audit_log.id', query.sort.direction)
      .limit(query.per_page)
      .offset(offsetOf(query))
      .execute(),
    countRows(filtered),
  ]);
  return { rows: rows.map((row) => ({ ...row, summary: row.summary as Record<string, unknown> })), total };
}

export async function auditFacets(db: Kysely<Tables>, filters: AuditFilters) {
  const filtered = db.selectFrom('audit_log').where((eb) => filterConditions(eb, filters));
  const count = sql<number>`count(*)::int`;
  const [total, actions, actors, targetTypes] = await Promise.all([
    countRows(filtered),
    filtered.select(['audit_log.action as value', count.as('count')]).groupBy('audit_log.action').orderBy('count', 'desc').orderBy('value').limit(FACET_LIMIT).execute(),
    filtered
      .leftJoin('users', 'users.id', 'audit_log.actor_id')
      .select(['audit_log.actor_id as value', sql<string | null>`max(users.email)`.as('email'), count.as('count')])
      .groupBy('audit_log.actor_id')
      .orderBy('count', 'desc')
      .orderBy('value')
      .limit(FACET_LIMIT)
      .execute(),
    filtered.select(['audit_log.target_type as value', count.as('count')]).groupBy('audit_log.target_type').orderBy('count', 'desc').orderBy('value').limit(FACET_LIMIT).execute(),
  ]);
  return { total, actions, actors, target_types: targetTypes };
}
