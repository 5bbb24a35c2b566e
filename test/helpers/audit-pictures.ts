import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Kernel } from '../../src/kernel/kernel.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';

/**
 * Every audit row a suite writes must have a picture the service wrote before the pictures were
 * derived from table declarations (decision 0100): `test/fixtures/audit-pictures.json` holds, per
 * action, every shape the suite produced then. Every test app checks the rows of its own database
 * against it when it closes (`test/helpers/app.ts`), so a picture that gains a key, loses one of its
 * summary's, or holds another kind of value, fails the file that wrote it. Rows of an action a test
 * writes itself are not the service's: the test names that action with `testAuditAction`.
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
 * The kind of value a key of a picture holds. A run decides the value, not its kind: a number is a
 * number whatever it counts (ids and balances follow the order parallel writes land in), a string
 * is text whatever a client chose (a slug may look like a status word, an idempotency key like an
 * id); an instant is the service's own form and stays apart. Booleans, objects and lists are their
 * kind; null is `null` (a nullable column, held by any recorded kind).
 */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return value === '<instant>' ? value : 'text';
  return typeof value;
}

const SIDES = ['before', 'after'];

/**
 * A picture's keys, each as `path: kind`: the target type as it is (the service names it), the
 * summary's own keys, and the columns of its before and after (of each row, when a side is a list
 * of rows). What a column holds is a value (a document a test sent, a filter it chose): its kind
 * only, so the keys a test's input puts inside it are not the picture's.
 */
function keysOf(picture: { target_type: unknown; summary: unknown }): Set<string> {
  const keys = new Set([`.target_type: ${JSON.stringify(picture.target_type)}`]);
  const summary = picture.summary;
  if (summary === null || typeof summary !== 'object' || Array.isArray(summary)) {
    keys.add(`.summary: ${kindOf(summary)}`);
    return keys;
  }
  for (const [key, value] of Object.entries(summary)) {
    keys.add(`.summary.${key}: ${kindOf(value)}`);
    if (!SIDES.includes(key)) continue;
    const rows = Array.isArray(value) ? value : [value];
    const path = Array.isArray(value) ? `.summary.${key}[]` : `.summary.${key}`;
    for (const row of rows)
      if (row !== null && typeof row === 'object' && !Array.isArray(row))
        for (const [column, held] of Object.entries(row)) keys.add(`${path}.${column}: ${kindOf(held)}`);
  }
  return keys;
}

const pathOf = (key: string) => key.slice(0, key.lastIndexOf(': '));

interface RecordedPictures {
  shapes: Set<string>;
  /** Every `path: kind` a recorded picture of the action holds. */
  keys: Set<string>;
  /** Every path a recorded picture of the action holds. */
  paths: Set<string>;
  /** The summary's keys every recorded picture of the action holds. */
  everywhere: Set<string>;
}

let recordedByAction: Map<string, RecordedPictures> | undefined;
/**
 * The pictures a user's hard delete leaves on every row about them (`redactAuditOf`), whatever the
 * row's action: the recorded shapes whose summary says only that it was redacted.
 */
const redactedShapes = new Set<string>();

/** Per action, what its recorded pictures hold (built once per process from the fixture). */
function recordedPictures(action: string): RecordedPictures | undefined {
  if (recordedByAction === undefined) {
    recordedByAction = new Map();
    for (const [recorded, shapes] of Object.entries(auditPicturesFixture())) {
      const keys = new Set<string>();
      let everywhere: Set<string> | undefined;
      for (const shape of shapes) {
        const picture = JSON.parse(shape) as { target_type: unknown; summary: unknown };
        if (canonicalJson(Object.keys(picture.summary ?? {})) === '["redacted"]') redactedShapes.add(shape);
        const own = keysOf(picture);
        for (const key of own) keys.add(key);
        const top = new Set([...own].map(pathOf).filter((path) => /^\.summary\.[^.[]+$/.test(path)));
        everywhere = everywhere === undefined ? top : new Set([...everywhere].filter((path) => top.has(path)));
      }
      recordedByAction.set(recorded, {
        shapes: new Set(shapes),
        keys,
        paths: new Set([...keys].map(pathOf)),
        everywhere: everywhere ?? new Set(),
      });
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
 * recorded suites wrote exactly passes. So does one that differs only in what a run decides: its
 * every key held a value of the same kind in some recorded picture of its action (null where any
 * value was), and it holds each of the summary's keys that all of them held (another field edited,
 * another count, another order of parallel writes, another fuzzed input). A new key, a summary key
 * gone, a key holding another kind of value (a length become the text), another target type, or an
 * action never recorded fails. A row a user's hard delete redacted holds the recorded redaction
 * picture, whatever its action. Rows of a test's own actions (`testAuditAction`) pass.
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
    if (recorded.shapes.has(shape) || redactedShapes.has(shape)) continue;
    const keys = keysOf(JSON.parse(shape));
    const paths = new Set([...keys].map(pathOf));
    const strange = [...keys].filter(
      (key) => !recorded.keys.has(key) && !(key.endsWith(': null') && recorded.paths.has(pathOf(key))),
    );
    const missing = [...recorded.everywhere].filter((path) => !paths.has(path));
    if (strange.length > 0 || missing.length > 0)
      unknown.add(
        `${row.action} ${shape} (unlike before:${[...strange, ...missing.map((path) => `${path} missing`)].map((what) => ` ${what}`).join(',')})`,
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
