import type { Kysely } from 'kysely';
import type { NewAuditRow, Tables } from '../db/tables.js';
import type { RequestContext } from './actor.js';
import { canonicalJson } from '../lib/canonical-json.js';

/** Who wrote the change: a signed-in staff member, or the service itself (`userId` null). */
export interface AuditActor extends RequestContext {
  userId: string | null;
}

export interface AuditEntry {
  action: string;
  targetType?: string;
  targetId?: string;
  reason?: string | null;
  /** A small picture of the change; never secrets. */
  before?: unknown;
  after?: unknown;
  /** Anything else worth keeping (counts, ids of a bulk change). */
  extra?: Record<string, unknown>;
}

function auditRow(actor: AuditActor, entry: AuditEntry): NewAuditRow {
  const summary: Record<string, unknown> = { ...entry.extra };
  if (entry.before !== undefined) summary.before = entry.before;
  if (entry.after !== undefined) summary.after = entry.after;
  return {
    actor_id: actor.userId,
    action: entry.action,
    target_type: entry.targetType ?? null,
    target_id: entry.targetId ?? null,
    request_id: actor.requestId,
    ip: actor.ip,
    user_agent: actor.userAgent,
    reason: entry.reason ?? null,
    summary: JSON.stringify(summary),
  };
}

/** Writes the audit row inside the caller's transaction: the change and its record land together. */
export async function recordAudit(trx: Kysely<Tables>, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await trx.insertInto('audit_log').values(auditRow(actor, entry)).execute();
}

/** Many audit rows in one statement (bulk operations). */
export async function recordAuditMany(trx: Kysely<Tables>, actor: AuditActor, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await trx
    .insertInto('audit_log')
    .values(entries.map((entry) => auditRow(actor, entry)))
    .execute();
}

const AUDIT_TEXT_MAX = 200;

/** A value as audit rows keep it, a picture rather than the document: long texts cut, `metadata` as its keys. */
export function briefAuditValue(field: string, value: unknown): unknown {
  if (field === 'metadata') return { keys: Object.keys((value ?? {}) as object).sort() };
  if (typeof value === 'string' && value.length > AUDIT_TEXT_MAX) return `${value.slice(0, AUDIT_TEXT_MAX)}…`;
  return value;
}

/** What an edit changes, as its audit row keeps it. */
export interface AuditChanges<Field extends string> {
  before: Partial<Record<Field, unknown>>;
  after: Partial<Record<Field, unknown>>;
  /** The fields whose value differs, in order: none when the write would change nothing. */
  changed: Field[];
}

export interface AuditChangesOptions<Field extends string> {
  /** The fields to compare, in the order the pictures list them; every key of `wanted` by default. */
  fields?: readonly Field[];
  /** A value as the audit row shows it (a long text cut, a document as its keys); as it is by default. */
  show?: (field: Field, value: unknown) => unknown;
  /** Both pictures whole, changed fields or not (what some actions have always audited). */
  whole?: boolean;
  /** Fields that count as changed whenever sent, equal or not: a document an edit has always replaced whole. */
  alwaysChanged?: readonly NoInfer<Field>[];
}

/** Same value: objects and arrays compare as canonical JSON, since jsonb hands keys back reordered. */
function sameValue(stored: unknown, wanted: unknown): boolean {
  if (typeof stored !== 'object' || typeof wanted !== 'object' || stored === null || wanted === null)
    return stored === wanted;
  return canonicalJson(stored) === canonicalJson(wanted);
}

/**
 * The audit row's `before` and `after` of an edit: the stored and the wanted value of each field
 * the edit sends (not `undefined`; `null` is a value that clears) whose value differs. A write
 * that changes nothing should store and audit nothing (`changed` is empty), so consoles and
 * config-as-code tools that re-apply the same values add no noise. Values are compared as stored
 * and shown through `show`, so a cut text still counts as changed.
 */
export function auditChanges<Field extends string>(
  stored: { readonly [F in Field]?: unknown },
  wanted: { readonly [F in Field]?: unknown },
  options: AuditChangesOptions<Field> = {},
): AuditChanges<Field> {
  const show = options.show ?? ((_field: Field, value: unknown) => value);
  const fields = options.fields ?? (Object.keys(wanted) as Field[]);
  const changes: AuditChanges<Field> = { before: {}, after: {}, changed: [] };
  for (const field of fields) {
    const value = wanted[field];
    const differs =
      value !== undefined && (options.alwaysChanged?.includes(field) === true || !sameValue(stored[field], value));
    if (differs) changes.changed.push(field);
    if (!differs && !(options.whole && value !== undefined)) continue;
    changes.before[field] = show(field, stored[field]);
    changes.after[field] = show(field, value);
  }
  return changes;
}

/**
 * For users' hard delete (the kernel owns audit_log). The audit trail outlives a hard-deleted user, but not their personal data: entries about
 * them keep who did what and when, and lose the change summary (names, emails); entries they
 * made keep the action and lose where they made it from (IP, user agent).
 */
export async function redactAuditOf(trx: Kysely<Tables>, userId: string): Promise<void> {
  await trx
    .updateTable('audit_log')
    .set({ summary: JSON.stringify({ redacted: true }) })
    .where('target_type', '=', 'user')
    .where('target_id', '=', userId)
    .execute();
  await trx.updateTable('audit_log').set({ ip: null, user_agent: null }).where('actor_id', '=', userId).execute();
}
