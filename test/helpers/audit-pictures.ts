import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Kernel } from '../../src/kernel/kernel.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';

/**
 * Every audit row a suite writes must have a picture the service wrote before the pictures were
 * derived from table declarations (decision 0100): `test/fixtures/audit-pictures.json` holds, per
 * action, every shape the suite produced then. Every test app checks the rows of its own database
 * against it when it closes (`test/helpers/app.ts`), so a picture that gains or loses a key, or holds
 * another kind of value, fails the file that wrote it. Rows of an action a test writes itself are
 * not the service's: the test names that action with `testAuditAction`.
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

/**
 * What a key of a picture holds, as far as a run decides it: a number by its kind (ids and balances
 * follow the order parallel writes land in; counts follow the test), a word by its kind (a slug or a
 * key a test chose looks like a status), a boolean and null as they are (the service decides them).
 */
function kindOf(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
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

interface RecordedPictures {
  shapes: Set<string>;
  /** Every `path: kind` a recorded picture of the action holds. */
  leaves: Set<string>;
  /** The paths every recorded picture of the action holds. */
  everywhere: Set<string>;
}

const pathOf = (leaf: string) => leaf.slice(0, leaf.lastIndexOf(': '));

let recordedByAction: Map<string, RecordedPictures> | undefined;

/** Per action, what its recorded pictures hold (built once per process from the fixture). */
function recordedPictures(action: string): RecordedPictures | undefined {
  if (recordedByAction === undefined) {
    recordedByAction = new Map();
    for (const [recorded, shapes] of Object.entries(auditPicturesFixture())) {
      const leaves = new Set<string>();
      let everywhere: Set<string> | undefined;
      for (const shape of shapes) {
        const own = leavesOf(JSON.parse(shape));
        for (const leaf of own) leaves.add(leaf);
        const paths = new Set([...own].map(pathOf));
        everywhere = everywhere === undefined ? paths : new Set([...everywhere].filter((path) => paths.has(path)));
      }
      recordedByAction.set(recorded, { shapes: new Set(shapes), leaves, everywhere: everywhere ?? new Set() });
    }
  }
  return recordedByAction.get(action);
}

const testActions = new Set<string>();

/**
 * Names an audit action a test writes itself (a row it inserts, a probe's `w.audit`): its rows are
 * the test's, not pictures of the service, and the check passes them. An action the service writes
 * (one the fixture holds) is refused, so no test can take the service's rows out of the check.
 */
export function testAuditAction<Action extends string>(action: Action): Action {
  if (auditPicturesFixture()[action] !== undefined)
    throw new Error(`${action} is an action the service writes: its rows are held to the recorded pictures`);
  testActions.add(action);
  return action;
}

/**
 * The rows whose picture the fixture does not hold, as lines of a failure message. A shape the
 * recorded suites wrote exactly passes. So does one that differs only where runs differ: its every
 * key path held a value of the same kind in some recorded picture of its action (another field
 * edited, another count, another order of parallel writes), and it holds every path that all of
 * them held. A new key, a key gone, a key holding another kind of value (a length become the text,
 * a true become false), or an action never recorded fails. Rows of a test's own actions pass.
 */
export function unknownAuditPictures(rows: AuditPictureRow[]): string[] {
  const unknown = new Set<string>();
  for (const row of rows) {
    if (testActions.has(row.action)) continue;
    const shape = auditShape(row);
    const recorded = recordedPictures(row.action);
    if (recorded === undefined) {
      unknown.add(`${row.action} ${shape} (an action never recorded)`);
      continue;
    }
    if (recorded.shapes.has(shape)) continue;
    const leaves = leavesOf(JSON.parse(shape));
    const paths = new Set([...leaves].map(pathOf));
    const strange = [...leaves].filter((leaf) => !recorded.leaves.has(leaf));
    const missing = [...recorded.everywhere].filter((path) => !paths.has(path));
    if (strange.length > 0 || missing.length > 0)
      unknown.add(
        `${row.action} ${shape} (unlike before:${strange.map((leaf) => ` ${leaf}`).join(',')}${missing.map((path) => ` ${path} missing`).join(',')})`,
      );
  }
  return [...unknown];
}

/**
 * Checks (or records) the audit rows of a test app's database before it is dropped: the rows whose
 * picture the fixture does not hold, as lines of a failure message.
 */
export async function checkAuditPictures(db: Kernel['db']): Promise<string[]> {
  const rows = await db.selectFrom('audit_log').select(['action', 'target_type', 'summary']).execute();
  const record = process.env.AUDIT_PICTURES_RECORD;
  if (record) {
    if (rows.length > 0)
      appendFileSync(record, rows.map((row) => `${JSON.stringify([row.action, auditShape(row)])}\n`).join(''));
    return [];
  }
  return unknownAuditPictures(rows);
}
