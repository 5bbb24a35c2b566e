import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { AuditActor } from '../audit.js';

export interface AuditedEdit<Field extends string> {
  /** A table keyed by a uuid `id`. */
  table: keyof Tables & string;
  id: string;
  /** The editable fields, in the order the audit pictures list them. */
  fields: readonly Field[];
  /** What the caller asks for: `undefined` = not sent, `null` = a value (it clears). */
  wanted: Partial<Record<Field, unknown>>;
  /** Columns set along with any real change: who changed the row and when. */
  stamp: Record<string, unknown>;
  /** Columns of the stored row named in the audit summary beside the change (e.g. an immutable key). */
  summaryColumns?: readonly string[];
  audit: { action: string; targetType: string; reason?: string | null };
}

/** `missing`: no row has the id. `unchanged`: every field sent already had its value; nothing was written. */
export type EditOutcome = 'missing' | 'unchanged' | 'changed';

/**
 * Edits one row and audits the fields that really changed, in one statement: the row is locked,
 * compared, written and its audit row inserted in a single round trip, so the lock is held for
 * that statement alone rather than across a transaction's five round trips (BEGIN, read, write,
 * audit, COMMIT). Same semantics as read-compare-write: the stored row is read `FOR UPDATE`, so
 * an edit racing another sees the other's result as its `before` (PostgreSQL re-reads a locked
 * row's newest version); a write that changes nothing stores and audits nothing.
 */
export async function editAudited<Field extends string>(
  db: Kysely<Tables>,
  actor: AuditActor,
  edit: AuditedEdit<Field>,
): Promise<EditOutcome> {
  const sent = edit.fields.filter((field) => edit.wanted[field] !== undefined);
  const summaryColumns = edit.summaryColumns ?? [];
  const table = sql.table(edit.table);
  const stored = (column: string) => sql.ref(`stored.${column}`);
  const edited = (column: string) => sql.ref(`edited_row.${column}`);
  const value = (field: Field) => sql.val(edit.wanted[field]);

  // jsonb of the fields whose stored value differs from the new one (`before` or `after` side).
  const picture = (side: (column: string) => RawBuilder<unknown>) =>
    sent.length === 0
      ? sql`'{}'::jsonb`
      : sql.join(
          sent.map(
            (field) =>
              sql`CASE WHEN ${stored(field)} IS DISTINCT FROM ${edited(field)} THEN
                jsonb_build_object(${sql.lit(field)}, ${side(field)}) ELSE '{}'::jsonb END`,
          ),
          sql` || `,
        );
  const summaryExtra =
    summaryColumns.length === 0
      ? sql`'{}'::jsonb`
      : sql`jsonb_build_object(${sql.join(
          summaryColumns.map((column) => sql`${sql.lit(column)}, ${stored(column)}`),
        )})`;
  const assignments = [
    ...sent.map((field) => sql`${sql.ref(field)} = ${value(field)}`),
    ...Object.entries(edit.stamp).map(([column, stampValue]) => sql`${sql.ref(column)} = ${sql.val(stampValue)}`),
  ];
  const anyDifference =
    sent.length === 0
      ? sql`false`
      : sql.join(
          sent.map((field) => sql`${stored(field)} IS DISTINCT FROM ${value(field)}`),
          sql` OR `,
        );
  const readColumns = [...new Set(['id', ...sent, ...summaryColumns])].map((column) => sql.ref(column));

  const { rows } = await sql<{ found: boolean; changed: boolean }>`
    WITH stored AS (
      SELECT ${sql.join(readColumns)} FROM ${table} WHERE id = ${edit.id} FOR UPDATE
    ), edited AS (
      UPDATE ${table} AS edited_row SET ${sql.join(assignments)}
      FROM stored
      WHERE edited_row.id = stored.id AND (${anyDifference})
      RETURNING ${picture(stored)} AS before, ${picture(edited)} AS after,
        ${summaryExtra} AS extra
    ), audited AS (
      INSERT INTO audit_log (actor_id, action, target_type, target_id, request_id, ip, user_agent, reason, summary)
      SELECT ${actor.userId}::uuid, ${edit.audit.action}::text, ${edit.audit.targetType}::text, ${edit.id}::text,
        ${actor.requestId}::text, ${actor.ip}::text, ${actor.userAgent}::text, ${edit.audit.reason ?? null}::text,
        extra || jsonb_build_object('before', before, 'after', after)
      FROM edited
    )
    SELECT EXISTS (SELECT 1 FROM stored) AS found, EXISTS (SELECT 1 FROM edited) AS changed
  `.execute(db);
  const outcome = rows[0];
  if (outcome === undefined || !outcome.found) return 'missing';
  return outcome.changed ? 'changed' : 'unchanged';
}
