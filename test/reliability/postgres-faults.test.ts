import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/database.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { expectDatabaseRefusal, expectDatabaseUnavailable, loadUntil, RELIABILITY_FULL } from './fixtures.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * PostgreSQL cut, black-holed and slowed down under load, through a TCP proxy between the
 * service and the server. These run on the PostgreSQL run only (TEST_DATABASE_URL; CI runs
 * both): the embedded database lives in this process and has no network to break, and a fake
 * of pg's failures would test the fake.
 */

const POOL_MAX = 5;
const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** A request during an outage must be answered within this (connect timeout, a retry's worth). */
const FAIL_FAST_MS = 3_000;
const LOAD_WORKERS = RELIABILITY_FULL ? 24 : 8;

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL through a proxy', () => {
  let testDatabase: TestDatabase;
  let proxy: TcpProxy;
  let database: Database;
  let t: TestApp;
  let staff: TestUser;
  /** A direct connection, beside the proxy: the test's own view of what was written. */
  let direct: pg.Client;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const url = new URL(testDatabase.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = openPostgres({
      connectionString: proxy.via(testDatabase.url!),
      poolMax: POOL_MAX,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
    t = await startTestApp({ database });
    staff = await createUser(testDatabase.database.db, ['roles.read', 'roles.write']);
    direct = new pg.Client({ connectionString: testDatabase.url! });
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.end();
    await t?.close();
    await database?.close();
    await proxy?.close();
    await testDatabase?.drop();
  });
  beforeEach(() => proxy.pass());

  const createRole = async () => {
    const key = `r-${randomUUID().slice(0, 12)}`;
    const response = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      token: staff.token,
      payload: { key, name: 'Fault test role', permissions: ['roles.read'] },
    });
    return { response, meta: key };
  };
  // A read that asks the database every time (GET /v1/me is answered from memory once warm).
  const readMe = () => t.request({ method: 'GET', url: '/v1/me/notifications', token: staff.token });
  const profile = () => t.request({ method: 'GET', url: '/v1/me', token: staff.token });

  /** Until a request through the service succeeds again; how long it took. */
  async function recovery(): Promise<number> {
    const started = Date.now();
    let last = await readMe();
    await waitFor(
      async () => {
        if (last.statusCode !== 200) last = await readMe();
        return last.statusCode === 200;
      },
      () => `recovery (last answer ${last.statusCode} ${last.body})`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    return Date.now() - started;
  }

  it('connections cut under load: requests fail fast with 503 unavailable, nothing is half written, service recovers within 5 s', async () => {
    const load = loadUntil<string | null>(LOAD_WORKERS, async (i) =>
      i % 2 === 0 ? createRole() : { response: await readMe(), meta: null },
    );
    await load.whenCompleted(LOAD_WORKERS * 3);
    proxy.refuse();
    const cutAt = Date.now();
    await load.whenFailed(LOAD_WORKERS * 2);
    proxy.pass();
    const back = await recovery();
    const results = await load.stop();

    // During the cut: a documented 503, never a 500, and each answered quickly.
    const failed = results.filter((r) => r.response.statusCode !== 200 && r.response.statusCode !== 201);
    expect(failed.length).toBeGreaterThanOrEqual(LOAD_WORKERS * 2);
    for (const { response, ms } of failed) {
      expectDatabaseUnavailable(response);
      expect(ms).toBeLessThan(FAIL_FAST_MS);
    }
    expect(back).toBeLessThan(5_000);
    expect(Date.now() - cutAt).toBeLessThan(15_000);

    // No partial writes: every role the database holds has its permission and audit row, and
    // every 201 is a role the database holds.
    const created = results.filter((r) => r.response.statusCode === 201).map((r) => r.meta);
    expect(created.length).toBeGreaterThan(0);
    const { rows } = await direct.query<{ key: string; permissions: number; audits: number }>(`
      SELECT r.key,
             (SELECT count(*)::int FROM role_permissions p WHERE p.role_id = r.id) AS permissions,
             (SELECT count(*)::int FROM audit_log a WHERE a.action = 'roles.create' AND a.target_id = r.id::text) AS audits
        FROM roles r WHERE r.name = 'Fault test role'`);
    expect(
      rows.every((row) => row.permissions === 1 && row.audits === 1),
      JSON.stringify(rows.filter((row) => row.permissions !== 1 || row.audits !== 1)),
    ).toBe(true);
    expect(rows.map((row) => row.key)).toEqual(expect.arrayContaining(created));
  });

  it('a database that accepts connections and never answers: 503 within the connect timeout, then recovery', async () => {
    proxy.blackhole();
    proxy.cut();
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: POOL_MAX * 2 }, () => readMe()));
    expect(responses.map(expectDatabaseRefusal)).toContain('database_unavailable');
    expect(Date.now() - started).toBeLessThan(FAIL_FAST_MS);
    proxy.pass();
    expect(await recovery()).toBeLessThan(5_000);
  });

  it('answers slower than the statement timeout: the request is 503 in bounded time and the slow connections are not reused', async () => {
    await readMe();
    for (let i = 0; i < 2; i += 1) expect((await profile()).statusCode).toBe(200);
    proxy.latency(STATEMENT_TIMEOUT_MS + 500);
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: POOL_MAX }, () => readMe()));
    expect(responses.map(expectDatabaseRefusal)).toContain('database_unavailable');
    // The caller's principal and profile are kept in memory (kept exact by change notices, which
    // a slow database delays but does not lose): answered meanwhile, at memory speed.
    const cachedAt = Date.now();
    expect((await profile()).statusCode).toBe(200);
    expect(Date.now() - cachedAt).toBeLessThan(STATEMENT_TIMEOUT_MS);
    // The client's answer budget (statement timeout + 1 s), not the latency's multiples.
    expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS * 2 + 2_500);
    proxy.pass();
    // More requests than the pool holds, all at once: a connection left behind a slow answer
    // would hold its slot (or queue a query behind that answer) and this would time out.
    const after = await Promise.all(Array.from({ length: POOL_MAX * 3 }, () => readMe()));
    expect(after.map((response) => response.statusCode)).toEqual(after.map(() => 200));
  });

  it('a statement held past the statement timeout (a lock wait) is cancelled by the server: 503, the lock holder unharmed, the pool whole', async () => {
    await direct.query('BEGIN');
    await direct.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [staff.id]);
    try {
      const started = Date.now();
      const response = await t.request({
        method: 'PATCH',
        url: '/v1/me',
        token: staff.token,
        payload: { display_name: 'Blocked' },
      });
      expectDatabaseUnavailable(response);
      expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + 2_000);
      // The server cancelled it: nothing of ours still waits on the lock.
      const waiting = await direct.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      expect(waiting.rows[0].n).toBe(0);
    } finally {
      await direct.query('ROLLBACK');
    }
    const after = await Promise.all(
      Array.from({ length: POOL_MAX * 3 }, () =>
        t.request({ method: 'PATCH', url: '/v1/me', token: staff.token, payload: { display_name: 'Free' } }),
      ),
    );
    expect(after.map((response) => response.statusCode)).toEqual(after.map(() => 200));
    // The pool never grew past its size (plus the two listening connections, change bus and user
    // changes, and the test helper's own pool, which createUser used).
    const connections = await direct.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    expect(connections.rows[0].n).toBeLessThanOrEqual(POOL_MAX + 2 + POOL_MAX);
  });
});
