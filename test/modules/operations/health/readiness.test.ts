import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { READINESS_CACHE_MS } from '../../../../src/modules/operations/health/readiness.js';
import { startTestApp } from '../../../helpers/app.js';
import { closedPort } from '../../../helpers/ports.js';

type Started = Awaited<ReturnType<typeof startTestApp>>;

const allOk = { database: 'ok', migrations: 'ok', redis: 'not_configured', draining: false };
/** Each test starts an app of its own: on a loaded machine that alone can take most of the default 20 s. */
const STARTS = 60_000;

describe('health probes', () => {
  let t: Started | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await t?.close();
    t = undefined;
  }, STARTS);

  it(
    '/health/live answers 200 without a token',
    async () => {
      t = await startTestApp();
      const live = await t.request({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
    },
    STARTS,
  );

  it(
    '/health/ready answers 200 with every check when all is well',
    async () => {
      t = await startTestApp();
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: allOk });
    },
    STARTS,
  );

  it(
    'names migrations when one this build carries is not applied, after the 1 s cache',
    async () => {
      t = await startTestApp();
      // Only Date is faked (the cache's clock); timers stay real, so the checks' own timeouts run.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      expect((await t.request({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      const removed = await sql<{ name: string }>`
      DELETE FROM schema_migrations
      WHERE name = (SELECT max(name) FROM schema_migrations) RETURNING name`.execute(t.db);
      expect(removed.rows).toHaveLength(1);
      // Within the cache window the last result stands: a flood of probes is one round of checks.
      expect((await t.request({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + READINESS_CACHE_MS);
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'not_ready',
        details: { failing: ['migrations'], checks: { ...allOk, migrations: 'pending' } },
      });
      // /health keeps its own, unchanged answer.
      expect((await t.request({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok', database: 'ok' });
    },
    STARTS,
  );

  it(
    'names draining once the drain has begun, at once (not cached)',
    async () => {
      t = await startTestApp();
      expect((await t.request({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      t.kernel.drain.begin();
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'not_ready',
        details: { failing: ['draining'], checks: { ...allOk, draining: true } },
      });
      // Liveness is untouched: the process still answers.
      expect((await t.request({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    },
    STARTS,
  );

  it(
    'names database when the database does not answer',
    async () => {
      t = await startTestApp();
      const { database } = t.kernel;
      // Every session of the service's database closed under it: PGlite closed, the PostgreSQL pool ended.
      await database.close();
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'not_ready',
        details: {
          failing: ['database', 'migrations'],
          checks: { ...allOk, database: 'unreachable', migrations: 'unknown' },
        },
      });
      expect((await t.request({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      // The database's own listeners cannot unlisten from a closed database: what is left is closed as it can be.
      const broken = t;
      t = undefined;
      await broken.app.close();
      await broken.kernel.stop().catch(() => {});
      await broken.testDatabase?.drop().catch(() => {});
    },
    STARTS,
  );

  it(
    'names redis when REDIS_URL points at a closed port, while /health keeps the spec answer',
    async () => {
      t = await startTestApp({ config: { redisUrl: `redis://127.0.0.1:${await closedPort()}` } });
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'not_ready',
        details: { failing: ['redis'], checks: { ...allOk, redis: 'unreachable' } },
      });
      const health = await t.request({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok', database: 'ok' });
    },
    STARTS,
  );

  it(
    'says redis ok when REDIS_URL answers',
    async () => {
      t = await startTestApp({ config: { redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } });
      const ready = await t.request({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: { ...allOk, redis: 'ok' } });
    },
    STARTS,
  );
});
