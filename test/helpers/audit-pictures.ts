import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Kernel } from '../../src/kernel/kernel.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';

/**
 * Every audit row a suite writes must have a picture the service wrote before the pictures were
 * derived from table declarations (decision 0100): `test/fixtures/audit-pictures.json` holds, per
 * action, every shape the suite produced then. With AUDIT_PICTURES_CHECK=1 a test app checks its rows against it when it
 * closes, so a picture that changes a key or a value fails the file that wrote it.
 * `AUDIT_PICTURES_RECORD=<file>` appends the shapes to that file instead (to record the fixture).
 */
export const AUDIT_PICTURES_FIXTURE = fileURLToPath(new URL('../fixtures/audit-pictures.json', import.meta.url));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
// A word of the service's own vocabulary (a status, a category, a reason), kept as it is; any
// other text may carry the random part of a name a test made (`ct-hwljkojs`, `tpl-1a2b3c`).
const WORD = /^[a-z_]{1,32}$/;
const RANDOM_HEX = /^[0-9a-f]{8}$/;

/**
 * A value with what differs between runs replaced by its kind: ids, instants and free text.
 * Keys, numbers, booleans, nulls, array lengths and the service's words stay exact.
 */
export function runIndependent(value: unknown): unknown {
  if (typeof value === 'string') {
    if (UUID.test(value) || value === '<uuid>') return '<uuid>';
    if (INSTANT.test(value) || value === '<instant>') return '<instant>';
    if (RANDOM_HEX.test(value) || !WORD.test(value)) return '<text>';
    return value;
  }
  if (Array.isArray(value)) return value.map(runIndependent);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, runIndependent(inner)]));
  return value;
}

export interface AuditPictureRow {
  action: string;
  target_type: string | null;
  summary: unknown;
}

/** One row's shape as the fixture keeps it: what the row says, in canonical JSON. */
export function auditShape(row: AuditPictureRow): string {
  const summary = typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary;
  return canonicalJson(runIndependent({ target_type: row.target_type, summary }));
}

let fixture: Record<string, string[]> | undefined;

export function auditPicturesFixture(): Record<string, string[]> {
  fixture ??= JSON.parse(readFileSync(AUDIT_PICTURES_FIXTURE, 'utf8')) as Record<string, string[]>;
  return fixture;
}

/** The kind of a run-independent value: what a key of a picture may hold. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.startsWith('<') ? value : 'word';
  return typeof value;
}

/** Every leaf of a picture as `path: kind` (array items share the path `[]`). */
function leavesOf(value: unknown, path = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    if (value.length === 0) into.add(`${path}: []`);
    for (const item of value) leavesOf(item, `${path}[]`, into);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) into.add(`${path}: {}`);
    for (const [key, inner] of entries) leavesOf(inner, `${path}.${key}`, into);
  } else into.add(`${path}: ${kindOf(value)}`);
  return into;
}

let leavesByAction: Map<string, Set<string>> | undefined;

/** Per action, every `path: kind` its recorded pictures hold. */
function recordedLeaves(action: string): Set<string> | undefined {
  if (leavesByAction === undefined) {
    leavesByAction = new Map();
    for (const [recorded, shapes] of Object.entries(auditPicturesFixture())) {
      const leaves = new Set<string>();
      for (const shape of shapes) leavesOf(JSON.parse(shape), '', leaves);
      leavesByAction.set(recorded, leaves);
    }
  }
  return leavesByAction.get(action);
}

/**
 * The rows whose picture the fixture does not hold, as lines of a failure message. A shape the
 * recorded suites wrote exactly passes; so does one whose every key path and kind of value some
 * recorded picture of its action had (a test that changes another field, or another count, than
 * the recorded ones did). A new key, a key gone into another form (a length become the text), or
 * an action never recorded fails.
 */
export function unknownAuditPictures(rows: AuditPictureRow[]): string[] {
  const known = auditPicturesFixture();
  const unknown = new Set<string>();
  for (const row of rows) {
    const shape = auditShape(row);
    if (known[row.action]?.includes(shape)) continue;
    const recorded = recordedLeaves(row.action);
    const strange = [...leavesOf(JSON.parse(shape))].filter((leaf) => !recorded?.has(leaf));
    if (recorded === undefined || strange.length > 0)
      unknown.add(`${row.action} ${shape}${recorded === undefined ? '' : ` (unlike before: ${strange.join(', ')})`}`);
  }
  return [...unknown];
}

/** Checks (or records) the audit rows of a test app's database before it is dropped. */
export async function checkAuditPictures(db: Kernel['db']): Promise<void> {
  const rows = await db.selectFrom('audit_log').select(['action', 'target_type', 'summary']).execute();
  const record = process.env.AUDIT_PICTURES_RECORD;
  if (record) {
    if (rows.length > 0)
      appendFileSync(record, rows.map((row) => `${JSON.stringify([row.action, auditShape(row)])}\n`).join(''));
    return;
  }
  const unknown = unknownAuditPictures(rows);
  if (unknown.length > 0) throw new Error(`audit pictures unlike any the service wrote before:\n${unknown.join('\n')}`);
}
