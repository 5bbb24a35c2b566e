import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { SuppressionReason } from '../tables.js';
import type { ListSuppressionsQuery, SuppressionView } from './schemas.js';
import '../tables.js';

type Db = Kysely<Tables>;

const COLUMNS = ['email', 'reason', 'source', 'message_id', 'created_at'] as const;

export interface NewSuppression {
  email: string;
  reason: SuppressionReason;
  source: string;
  messageId: string | null;
}

/**
 * Adds the address unless it is already suppressed (the first reason stays: an unsubscribe is
 * not turned into a bounce, nor the other way). `lower()` in SQL, so the row always obeys the
 * table's lowercase check whatever the address holds. The row when added, undefined when it was there.
 */
export function insertSuppression(db: Db, suppression: NewSuppression): Promise<SuppressionView | undefined> {
  return db
    .insertInto('email_suppressions')
    .values({
      email: sql<string>`lower(${suppression.email})`,
      reason: suppression.reason,
      source: suppression.source,
      message_id: suppression.messageId,
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
}

export function findSuppression(db: Db, email: string): Promise<SuppressionView | undefined> {
  return db
    .selectFrom('email_suppressions')
    .select(COLUMNS)
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export function deleteSuppression(db: Db, email: string): Promise<SuppressionView | undefined> {
  return db
    .deleteFrom('email_suppressions')
    .where('email', '=', email.toLowerCase())
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function listSuppressions(
  db: Db,
  query: ListSuppressionsQuery,
): Promise<{ rows: SuppressionView[]; total: number }> {
  let filtered = db.selectFrom('email_suppressions');
  if (query.q !== undefined) filtered = filtered.where('email', 'ilike', likePattern(query.q));
  if (query.reason !== undefined) filtered = filtered.where('reason', '=', query.reason);
  return readPage(filtered, query, (matching) =>
    matching.select(COLUMNS).orderBy(query.sort.field, query.sort.direction).orderBy('email'),
  );
}
