import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { CounterStore } from '../../src/kernel/rate-limits.js';
import { createUser, startTestApp } from '../helpers/app.js';
import { RELIABILITY_FULL } from '../reliability/fixtures.js';
import { describeCase, fuzzCases, fuzzOperations, injectOf, type FuzzCase, type FuzzOperation } from './fuzz-inputs.js';
import { isAdminPath, isMePath } from './route-table.js';

/**
 * Property-based fuzzing of every operation in the served /openapi.json (enumerated from the
 * document: a route added later is fuzzed without editing this file). Each operation gets
 * random requests built from its own documented schemas (fuzz-inputs.ts): wrong types, values
 * past the documented bounds, missing required and unknown fields, null, 10,000 levels of
 * nesting, huge arrays, malformed JSON and content types, SQL metacharacters and unicode
 * oddities in `q`, `sort`, filters and strings, bad uuids and malformed escapes in the path,
 * hostile headers. Admin routes are called by a holder of `*`, /v1/me by a plain player, so
 * requests pass the guard and reach validation and the handlers. Rate limits are not counted
 * here (their own suites test them) so every request reaches validation.
 *
 * Asserted for every request:
 * - never a 500, and no other 5xx unless the operation documents that status (a 503 `panic_mode`
 *   or `unavailable`, a 502 from a peer), and then a JSON `{ error }` body;
 * - every 400 is the spec's validation body, exactly `{ success: false, error: { name:
 *   'SchemaError', issues: [{ code, path, message, ... }] } }`, except the application errors a
 *   route documents (its description names the code), `invalid_json` for a body that is not
 *   JSON, `bad_url` for a malformed escape in the path, and a documented non-JSON 400 (the
 *   unsubscribe page);
 * - a refused request (4xx, or a documented 5xx) stored nothing: the row count and newest row
 *   version (`xmin`) of every table are the same before and after.
 *
 * Seeded (FUZZ_SEED, printed on failure with the replay path); FUZZ_RUNS or RELIABILITY_FULL=1
 * runs more; FUZZ_OPERATION='POST /v1/admin/roles' runs only operations containing that text;
 * FUZZ_LOG=1 prints the service's error log, FUZZ_SHRINK=1 shrinks a failing case (slow).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 90_210);
const RUNS = Number(process.env.FUZZ_RUNS ?? (RELIABILITY_FULL ? 100 : 12));
const ONLY = process.env.FUZZ_OPERATION;
const REPLAY_PATH = process.env.FUZZ_PATH;

/** Rate limits counted elsewhere; here every request is the first of its window. */
const UNCOUNTED: CounterStore = {
  increment: async (_key, windowMs) => ({ count: 1, resetInMs: windowMs }),
  close: async () => {},
};

// FUZZ_LOG=1 shows the service's error lines (the stack behind a 500) while replaying a case.
const t = await startTestApp({
  counterStore: UNCOUNTED,
  ...(process.env.FUZZ_LOG === '1' ? { log: pino({ level: 'error' }) } : {}),
});
afterAll(async () => {
  await t?.close();
});
const allOperations = await fuzzOperations(t);
const operations = allOperations.filter((operation) => ONLY === undefined || operation.route.includes(ONLY));
const owner = await createUser(t.db, ['*']);
const player = await createUser(t.db);

// Their first requests record the login sessions; last sightings in the future keep the guard
// from moving them (once a minute) while the fuzz compares fingerprints.
for (const user of [owner, player])
  expect((await t.request({ method: 'GET', url: '/v1/me', token: user.token })).statusCode).toBe(200);
await sql`UPDATE users SET last_seen_at = '2100-01-01T00:00:00Z' WHERE id IN (${owner.id}, ${player.id})`.execute(t.db);
await sql`UPDATE login_sessions SET last_seen_at = '2100-01-01T00:00:00Z' WHERE user_id IN (${owner.id}, ${player.id})`.execute(
  t.db,
);

/**
 * Refusals that write by design, and only to these tables: each with why. Anything else a
 * refused request stores is a finding.
 */
const STORES_WHEN_REFUSED: Record<string, { tables: string[]; why: string }> = {
  'POST /v1/me/delete/confirm': {
    tables: ['account_deletion_requests'],
    why: 'a wrong code counts an attempt (422 with attempts_left): the code cannot be guessed',
  },
};

const tokenFor = (operation: FuzzOperation) =>
  isAdminPath(operation.path) ? owner.token : isMePath(operation.path) ? player.token : undefined;

// ---------------------------------------------------------------------------------------------
// What the database holds: per table, the row count and the newest row version (an insert, an
// update or a delete moves one of them; a rolled-back write moves neither).

const { rows: tableRows } = await sql<{ table_name: string }>`
  SELECT table_name FROM information_schema.tables
   WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(t.db);
const fingerprintQuery = sql.raw(
  tableRows
    .map(
      ({ table_name: name }) =>
        `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(max(xmin::text::bigint), 0)::text AS state FROM "${name}"`,
    )
    .join(' UNION ALL '),
);

async function fingerprint(): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; state: string }>`${fingerprintQuery}`.execute(t.db);
  return new Map(rows.map((row) => [row.name, row.state]));
}

const changedTables = (before: Map<string, string>, after: Map<string, string>) =>
  [...after]
    .filter(([name, state]) => before.get(name) !== state)
    .map(([name, state]) => `${name} (${before.get(name)} → ${state})`);

/**
 * The server's next transaction id, read without taking one. No row is inserted, updated or
 * deleted without a transaction id, so while it stays put nothing was written: a look costing a
 * fraction of a fingerprint (which counts every table, and was most of this file's time). On
 * PostgreSQL other files' databases move it too; then the fingerprint decides, as before.
 */
async function nextTransactionId(): Promise<string> {
  const { rows } = await sql<{ xid: string }>`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid`.execute(
    t.db,
  );
  return rows[0]!.xid;
}

interface Stored {
  xid: string;
  tables: Map<string, string>;
}

/** The last look at what is stored: the fingerprint taken when the next transaction id was `xid`. */
let lastLook: Stored | undefined;

/** What is stored now: the last look while no transaction id was taken since, else a new fingerprint. */
async function stored(): Promise<Stored> {
  // The id first: a write between the two reads then shows as a change at the next look, never as none.
  const xid = await nextTransactionId();
  if (lastLook?.xid !== xid) lastLook = { xid, tables: await fingerprint() };
  return lastLook;
}

/** After a success: wait until its after-commit work (event delivery, caches) has written, and undo a maintenance level it set. */
async function settle(): Promise<void> {
  let last = await stored();
  for (let i = 0; i < 20; i += 1) {
    // After-commit work has no end to wait for: the database unchanged over a poll is the sign.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = await stored();
    if (now === last || changedTables(last.tables, now.tables).length === 0) break;
    last = now;
  }
  if ((await t.kernel.panic.refresh()).level !== 'off') {
    const reset = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: owner.token,
      payload: { level: 'off', reason: 'fuzz reset' },
    });
    expect(reset.statusCode).toBe(200);
    await t.kernel.panic.refresh();
  }
}

// ---------------------------------------------------------------------------------------------
// What an answer must look like.

/** The spec's validation error, exactly: these keys, these types, at least one issue. */
function isSchemaError(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { success, error, ...rest } = body as Record<string, unknown>;
  if (success !== false || Object.keys(rest).length > 0 || typeof error !== 'object' || error === null) return false;
  const { name, issues, ...restError } = error as Record<string, unknown>;
  if (name !== 'SchemaError' || Object.keys(restError).length > 0 || !Array.isArray(issues) || issues.length === 0)
    return false;
  return issues.every(
    (issue) =>
      typeof issue === 'object' &&
      issue !== null &&
      typeof issue.code === 'string' &&
      typeof issue.message === 'string' &&
      Array.isArray(issue.path) &&
      issue.path.every((step: unknown) => typeof step === 'string' || typeof step === 'number'),
  );
}

/** `{ error: code, details? }`. */
function applicationError(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { error, details: _details, ...rest } = body as Record<string, unknown>;
  return typeof error === 'string' && Object.keys(rest).length === 0 ? error : undefined;
}

const parsed = (response: LightMyRequestResponse): unknown => {
  try {
    return JSON.parse(response.body);
  } catch {
    return undefined;
  }
};

/** Codes an operation documents: named in backticks in its description or in the answer's. */
function documentsCode(operation: FuzzOperation, status: string, code: string): boolean {
  const text = `${operation.description}\n${operation.responses[status]?.description ?? ''}`;
  return text.includes(`\`${code}\``);
}

/** A documented error code of the answer: `{ error: code, ... }` (OAuth bodies add `error_description`, `interval`). */
function errorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { error } = body as Record<string, unknown>;
  return typeof error === 'string' ? error : undefined;
}

/** The media type a 400 answer's description announces ("text/html: the page saying …"): the document files such bodies under JSON. */
const announcedType = (operation: FuzzOperation) =>
  /^([a-z]+\/[a-z0-9.+-]+):/.exec(operation.responses['400']?.description ?? '')?.[1];

function problemsOf(operation: FuzzOperation, fuzz: FuzzCase, response: LightMyRequestResponse): string[] {
  const status = response.statusCode;
  const contentType = String(response.headers['content-type'] ?? '');
  const body = contentType.startsWith('application/json') ? parsed(response) : undefined;
  const problems: string[] = [];
  if (status === 500) problems.push('500');
  else if (status > 500) {
    if (!(String(status) in operation.responses)) problems.push(`${status}, not documented by the operation`);
    else if (applicationError(body) === undefined) problems.push(`${status} without a JSON { error } body`);
  }
  if (status === 400 && !isSchemaError(body)) {
    const code = applicationError(body);
    const page = announcedType(operation);
    const documentedPage = page !== undefined && page !== 'application/json' && contentType.startsWith(page);
    const documented = errorCode(body);
    const allowed =
      documentedPage ||
      (code === 'invalid_json' && fuzz.body?.kind === 'text' && fuzz.body.invalidJson === true) ||
      (code === 'bad_url' && Object.values(fuzz.path).some((value) => value.raw)) ||
      (documented !== undefined && documentsCode(operation, '400', documented));
    if (!allowed) problems.push('400 not in the SchemaError shape (nor an error the operation documents)');
  }
  return problems;
}

async function exercise(operation: FuzzOperation, fuzz: FuzzCase): Promise<void> {
  const request: InjectOptions = injectOf(operation, fuzz, tokenFor(operation));
  const before = await stored();
  const response = await t.app.inject(request);
  const problems = problemsOf(operation, fuzz, response);
  if (response.statusCode >= 400) {
    const allowed = STORES_WHEN_REFUSED[operation.route]?.tables ?? [];
    const changed = changedTables(before.tables, (await stored()).tables).filter(
      (change) => !allowed.includes(change.split(' ')[0]!),
    );
    if (changed.length > 0) problems.push(`refused (${response.statusCode}) yet stored: ${changed.join(', ')}`);
  } else {
    await settle();
  }
  if (problems.length > 0) {
    throw new Error(
      `${problems.join('; ')}\n    request: ${describeCase(fuzz, request)}\n    answer: ${response.statusCode} ${response.body.slice(0, 400)}`,
    );
  }
}

/** A seed of each operation's own, from the run's seed: operations do not all draw the same sequence. */
function seedOf(route: string): number {
  let hash = SEED >>> 0;
  for (const char of route) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619) >>> 0;
  return hash | 0;
}

const started = Date.now();
let requests = 0;

describe(`every operation of /openapi.json, fuzzed (seed ${SEED}, ${RUNS} runs each)`, () => {
  it('enumerates the document', () => {
    if (ONLY === undefined) expect(operations.length).toBeGreaterThan(200);
    expect(operations.length).toBeGreaterThan(0);
  });

  for (const operation of operations) {
    it(operation.route, async () => {
      const seed = seedOf(operation.route);
      const details = await fc.check(
        fc.asyncProperty(fuzzCases(operation), async (fuzz) => {
          requests += 1;
          await exercise(operation, fuzz);
        }),
        {
          seed,
          numRuns: RUNS,
          endOnFailure: process.env.FUZZ_SHRINK !== '1',
          ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }),
        },
      );
      if (details.failed) {
        const cause =
          details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(
          `${operation.route} failed after ${details.numRuns} runs: ${cause}\n    replay: FUZZ_SEED=${SEED} FUZZ_OPERATION='${operation.route}' FUZZ_PATH=${details.counterexamplePath} (operation seed ${seed})`,
        );
      }
    }, 60_000);
  }

  it('leaves the callers signed in and the service out of maintenance (the fuzz did not fuzz itself away)', async () => {
    console.info(
      `fuzz: ${operations.length} operations, ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED}, ${RUNS} runs each)`,
    );
    expect((await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: owner.token })).json()).toMatchObject({
      level: 'off',
    });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);
  });
});

describe('what the fuzz found, pinned (each was a 500)', () => {
  const refusedAt = async (request: InjectOptions & { token?: string }, path: Array<string | number>) => {
    const before = await fingerprint();
    const response = await t.request(request);
    expect(response.statusCode, `${request.method} ${request.url}: ${response.body.slice(0, 300)}`).toBe(400);
    const body = response.json();
    expect(isSchemaError(body), response.body.slice(0, 300)).toBe(true);
    expect(body.error.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(path);
    expect(changedTables(before, await fingerprint())).toEqual([]);
    return body.error.issues as Array<{ code: string; path: Array<string | number>; message: string }>;
  };

  it('U+0000 in a query, a path value, a body string or a JSON key, and lone surrogates: 400 SchemaError naming the place, nothing stored', async () => {
    const admin = owner.token;
    await refusedAt({ method: 'GET', url: '/v1/admin/store/games?q=%00', token: admin }, ['q']);
    await refusedAt({ method: 'GET', url: '/v1/admin/email/campaigns?q=a%00b', token: admin }, ['q']);
    await refusedAt({ method: 'GET', url: '/v1/public/store/games/%00' }, ['slug']);
    await refusedAt({ method: 'GET', url: '/v1/public/site/pages/about%00' }, ['slug']);
    await refusedAt({ method: 'DELETE', url: '/v1/me/sessions/a%00b', token: player.token }, ['sessionId']);
    await refusedAt({ method: 'DELETE', url: '/v1/admin/email/suppressions/a%40example.test%00', token: admin }, [
      'email',
    ]);
    const [nul] = await refusedAt(
      { method: 'POST', url: '/v1/admin/ops/panic', token: admin, payload: { level: 'lockdown', reason: '\u0000xx' } },
      ['reason'],
    );
    expect(nul).toMatchObject({ code: 'custom', message: 'must not contain the NUL character (U+0000)' });
    expect((await t.kernel.panic.refresh()).level).toBe('off');
    await refusedAt(
      {
        method: 'PUT',
        url: '/v1/admin/plans/rulesets',
        token: admin,
        payload: { key: 'fuzz-nul', name: 'Nul', limits: { 'a\u0000b': 1 } },
      },
      ['limits', 'a\u0000b'],
    );
    // JSON.stringify writes a lone surrogate as `\ud800`, which jsonb refuses; text columns got U+FFFD instead.
    const [lone] = await refusedAt(
      {
        method: 'PUT',
        url: '/v1/admin/plans/rulesets',
        token: admin,
        payload: { key: 'fuzz-lone', name: 'Lone', limits: { '\ud800': 1 } },
      },
      ['limits', '\ud800'],
    );
    expect(lone!.message).toBe('must be well-formed Unicode (a lone surrogate)');
    await refusedAt({ method: 'PATCH', url: '/v1/me', token: player.token, payload: { display_name: 'x\udc00' } }, [
      'display_name',
    ]);
    // The unsubscribe link's page: a NUL in the token is the JSON SchemaError (its 400 schema let
    // only the HTML page through: a 500 after the text check); in a parameter it ignores, the page.
    await refusedAt({ method: 'GET', url: '/v1/public/email/unsubscribe?token=a%00b' }, ['token']);
    await refusedAt({ method: 'POST', url: '/v1/public/email/unsubscribe?token=a%00b' }, ['token']);
    const page = await t.request({ method: 'GET', url: '/v1/public/email/unsubscribe?token=x&other=a%00b' });
    expect({ status: page.statusCode, type: page.headers['content-type'] }).toEqual({
      status: 400,
      type: 'text/html; charset=utf-8',
    });
    // Well-formed oddities still go through: a pair, RTL marks, combining marks, SQL metacharacters.
    const odd = "\u{1F600} \u202Eevil\u202C e\u0301 ' OR 1=1 -- %_\\";
    const patched = await t.request({
      method: 'PATCH',
      url: '/v1/me',
      token: player.token,
      payload: { display_name: odd },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().display_name).toBe(odd);
    const search = await t.request({
      method: 'GET',
      url: `/v1/admin/users?q=${encodeURIComponent("' OR 1=1 -- %_\\")}`,
      token: admin,
    });
    expect(search.statusCode).toBe(200);
    expect(search.json().data.map((user: { id: string }) => user.id)).toEqual([player.id]);
  });

  it('10,000 levels of nesting: 400 SchemaError where it passes 64 levels, nothing stored; 60 levels are stored', async () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const json = { 'content-type': 'application/json' };
    const issues = await refusedAt(
      {
        method: 'PATCH',
        url: `/v1/admin/users/${player.id}`,
        token: owner.token,
        headers: json,
        payload: `{"metadata":${deep(10_000)}}`,
      },
      ['metadata', ...new Array(63).fill('a')],
    );
    expect(issues[0]!.message).toBe('nested deeper than 64 levels');
    await refusedAt(
      {
        method: 'PATCH',
        url: `/v1/admin/plans/products/${player.id}`,
        token: owner.token,
        headers: json,
        payload: `{"metadata":${deep(10_000)}}`,
      },
      ['metadata', ...new Array(63).fill('a')],
    );
    await refusedAt(
      {
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        headers: json,
        payload: '['.repeat(10_000) + ']'.repeat(10_000),
      },
      new Array(64).fill(0),
    );
    const stored = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: owner.token,
      headers: json,
      payload: `{"metadata":${deep(60)}}`,
    });
    expect(stored.statusCode, stored.body).toBe(200);
    await settle();
  });

  it('every documented date-time query parameter refuses an offset no clock has (+99:99) with 400 SchemaError, and is past validation with a real one', async () => {
    const checked: string[] = [];
    for (const operation of allOperations) {
      if (operation.method !== 'GET' || operation.path.includes('{')) continue;
      for (const parameter of operation.parameters.filter(
        (candidate) => candidate.in === 'query' && candidate.schema.format === 'date-time',
      )) {
        const token = tokenFor(operation);
        await refusedAt(
          {
            method: 'GET',
            url: `${operation.path}?${parameter.name}=${encodeURIComponent('2030-01-01T00:00:00+99:99')}`,
            token,
          },
          [parameter.name],
        );
        const fine = await t.request({
          method: 'GET',
          url: `${operation.path}?${parameter.name}=${encodeURIComponent('2030-01-01T00:00:00+02:00')}`,
          token,
        });
        // Past validation: 200, or the route's own 422 (`from` after the default `to`).
        expect([200, 422], `${operation.route} ${parameter.name}: ${fine.body.slice(0, 200)}`).toContain(
          fine.statusCode,
        );
        checked.push(`${operation.route} ${parameter.name}`);
      }
    }
    expect(checked.length).toBeGreaterThan(15);
    // And in bodies: a grant, a broadcast's notification window, an announcement.
    await refusedAt(
      {
        method: 'POST',
        url: '/v1/admin/billing/credits/grant',
        token: owner.token,
        headers: { 'idempotency-key': 'fuzz-offset' },
        payload: { user_id: player.id, amount: 5, reason: 'fuzz', expires_at: '2030-01-01T00:00:00+99:99' },
      },
      ['expires_at'],
    );
    await refusedAt(
      {
        method: 'PUT',
        url: '/v1/admin/site/announcements',
        token: owner.token,
        payload: { title: 'x', body: 'y', starts_at: '2030-01-01T00:00:00+99:99' },
      },
      ['starts_at'],
    );
  });

  it('the local checkout page: ids named like Object.prototype members are 404 `checkout`', async () => {
    for (const id of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
      for (const request of [
        { method: 'GET' as const, url: `/v1/public/billing/local/checkout/${id}` },
        { method: 'POST' as const, url: `/v1/public/billing/local/checkout/${id}/pay` },
        { method: 'POST' as const, url: `/v1/public/billing/local/checkout/${id}/cancel` },
      ]) {
        const response = await t.request(request);
        expect({ route: `${request.method} ${request.url}`, status: response.statusCode, body: response.body }).toEqual(
          { route: `${request.method} ${request.url}`, status: 404, body: JSON.stringify({ error: 'checkout' }) },
        );
      }
    }
  });
});
