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
 * How a column shows in its table's audit picture: `true` as it is, `false` never recorded
 * (secrets, tokens, hashes, bulky documents), or shown under another key or in another form.
 */
export type AuditColumn = boolean | { readonly key?: string; readonly show?: (value: unknown) => unknown };

/** A picture of an instant: ISO text (rows hold a Date, bodies hold text with any offset). */
export const asInstant: AuditColumn = {
  show: (value) => (value === null ? null : new Date(value as Date | string).toISOString()),
};

/** A long text as its length in characters, under `key` (a page's body is not an audit record's business). */
export function asLength(key: string): AuditColumn {
  return { key, show: (value) => [...(value as string)].length };
}

/** A value as `briefAuditValue` keeps it: long texts cut, `metadata` as its keys. */
export function asBrief(column: string): AuditColumn {
  return { show: (value) => briefAuditValue(column, value) };
}

/**
 * Every column of a table, each declared once: recorded (and how) or not. A column added to the
 * table fails the typecheck until its declaration says which, so a secret is never recorded by
 * default. Names beyond the table's columns are values the service hands with the row (a role's
 * permission keys), declared the same way.
 */
export type AuditPictureDeclaration<Row> = { readonly [Column in keyof Row & string]-?: AuditColumn } & {
  readonly [name: string]: AuditColumn;
};

/** A table's audit picture: what its audit rows hold of a row, derived from the declaration. */
export interface AuditPicture<Row = unknown> {
  readonly columns: readonly string[];
  /**
   * The picture of a row (or the part of one a write read or sent): each recorded column it holds
   * (not `undefined`), shown as declared; `only` narrows it to the columns an action has always kept.
   */
  of(row: Partial<Record<keyof Row & string, unknown>> & object, only?: readonly string[]): Record<string, unknown>;
  /** An edit's pictures (see `auditChanges`) over the recorded columns `wanted` holds, shown as declared. */
  changes(
    stored: object,
    wanted: object,
    options?: Omit<AuditChangesOptions<string>, 'show' | 'fields'> & { only?: readonly string[] },
  ): AuditChanges<string>;
}

export function auditPicture<Row>(declaration: AuditPictureDeclaration<Row>): AuditPicture<Row> {
  const recorded = Object.entries(declaration as Record<string, AuditColumn>).filter(([, rule]) => rule !== false);
  const columns = recorded.map(([column]) => column);
  const rules = new Map(recorded);
  const keyOf = (column: string) => {
    const rule = rules.get(column);
    return typeof rule === 'object' && rule.key !== undefined ? rule.key : column;
  };
  const shown = (column: string, value: unknown) => {
    const rule = rules.get(column);
    return typeof rule === 'object' && rule.show !== undefined ? rule.show(value) : value;
  };
  const rename = (picture: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(picture).map(([column, value]) => [keyOf(column), value]));
  const inPicture = (only: readonly string[] | undefined) =>
    only === undefined ? columns : columns.filter((c) => only.includes(c));
  return {
    columns,
    of(row, only) {
      const picture: Record<string, unknown> = {};
      const values = row as Record<string, unknown>;
      for (const column of inPicture(only)) {
        if (values[column] !== undefined) picture[keyOf(column)] = shown(column, values[column]);
      }
      return picture;
    },
    changes(stored, wanted, { only, ...options } = {}) {
      const values = wanted as Record<string, unknown>;
      const fields = inPicture(only).filter((column) => values[column] !== undefined);
      const changes = auditChanges(stored as Record<string, unknown>, values, { ...options, fields, show: shown });
      return { before: rename(changes.before), after: rename(changes.after), changed: changes.changed };
    },
  };
}

/**
 * An audit row whose before and after are rows (or parts of rows) seen through their table's
 * picture: a row, a list of rows (a list replaced whole), or null (no row: an upsert that created it).
 */
export interface AuditRowEntry extends Omit<AuditEntry, 'before' | 'after'> {
  before?: object | readonly object[] | null;
  after?: object | readonly object[] | null;
  /** The columns this action's picture has always kept, when narrower than the table's (or per side). */
  only?: readonly string[] | { readonly before?: readonly string[]; readonly after?: readonly string[] };
}

/** The audit entry of rows: each side is the picture of its row, so nothing undeclared is recorded. */
export function pictureEntry(picture: AuditPicture, { before, after, only, ...entry }: AuditRowEntry): AuditEntry {
  const side = (name: 'before' | 'after') =>
    only === undefined || Array.isArray(only)
      ? only
      : (only as { before?: readonly string[]; after?: readonly string[] })[name];
  const pictured = (rows: object | readonly object[] | null, only: readonly string[] | undefined) => {
    if (rows === null) return null;
    return Array.isArray(rows) ? rows.map((row: object) => picture.of(row, only)) : picture.of(rows, only);
  };
  return {
    ...entry,
    ...(before === undefined ? {} : { before: pictured(before, side('before')) }),
    ...(after === undefined ? {} : { after: pictured(after, side('after')) }),
  };
}

/**
 * For users' hard delete (the kernel owns audit_log). The audit trail outlives a hard-deleted
 * user, but not their personal data: entries about them keep who did what and when, and lose the change summary (names, emails); entries they
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
