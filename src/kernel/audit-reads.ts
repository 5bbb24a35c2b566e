import { sql, type Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

/**
 * Reads of audit_log (the kernel's) an area makes about its own rows: a user's detail shows the
 * latest entries about them, a restore reads what a deletion's entry kept. The audit area's staff
 * search is the other reader.
 */

type Db = Kysely<Tables>;

/** The row an entry is about (`target_type`, `target_id`). */
export interface AuditTarget {
  type: string;
  id: string;
}

/** The latest `limit` entries about the row, newest first. */
export function recentAuditOf(db: Db, target: AuditTarget, limit: number) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'created_at', 'action', 'actor_id', 'reason'])
    .where('target_type', '=', target.type)
    .where('target_id', '=', target.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * What the latest entry of `action` about the row kept of `field` before the change
 * (`summary->'before'->>field`); undefined when there is no such entry or it kept none.
 */
export async function lastBeforeValueOf(
  db: Db,
  target: AuditTarget,
  action: string,
  field: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('audit_log')
    .select(sql<string | null>`summary->'before'->>${sql.lit(field)}`.as('value'))
    .where('target_type', '=', target.type)
    .where('target_id', '=', target.id)
    .where('action', '=', action)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.value ?? undefined;
}
