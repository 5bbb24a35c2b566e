import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsListener } from '../../../src/kernel/metrics/listener.js';
import { RATE_LIMITS } from '../../../src/kernel/rate-limits.js';
import { jobServicesOf } from '../../../src/modules/operations/scheduled-jobs/job-handlers.js';
import { JobScheduler } from '../../../src/modules/operations/scheduled-jobs/scheduler.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { closedPort } from '../../helpers/ports.js';
import { connected } from '../../modules/realtime/fixtures.js';
import { connectionError, samplesOf, scrape, sampleValue, type Scrape } from './scrape.js';

/**
 * Issue 32, part 1: Prometheus metrics on a listener of their own (METRICS_PORT). The app
 * answers real HTTP requests on its own port; the metrics are scraped over HTTP and parsed.
 */

const METRIC_HOOKS = ['metricsRequestStarted', 'metricsRequestAnswered', 'metricsRequestRefused'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A request whose answer waits until the test lets it go (requests in flight, overload). */
interface Held {
  release: () => void;
  released: Promise<void>;
}

function holdRequests(): Held {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { release, released };
}

const duration = (scraped: Scrape, route: string, statusClass: string, method = 'GET') =>
  sampleValue(scraped, 'http_request_duration_seconds_count', { method, route, status_class: statusClass });

describe('metrics on METRICS_PORT', () => {
  let t: TestApp;
  let metricsPort: number;
  let api: string;
  let staff: TestUser;
  let ops: TestUser;
  let held = holdRequests();
  let closed = false;

  beforeAll(async () => {
    metricsPort = await closedPort();
    t = await startTestApp({
      // Small enough for the overload test to reach; the tests before it send one request at a time.
      config: { metricsPort, maxRequestsInFlight: 3 },
      extraRoutes: (app) => {
        app.get('/v1/public/test-held', async () => {
          await held.released;
          return { ok: true };
        });
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    staff = await createUser(t.db, ['users.read']);
    ops = await createUser(t.db, ['ops.panic']);
  });

  afterAll(async () => {
    held.release();
    if (!closed) await t.close();
  });

  it('answers GET /metrics in the Prometheus text format, with every metric typed', async () => {
    const scraped = await scrape(metricsPort);
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(Object.fromEntries([...scraped.types].filter(([name]) => !/^(process|nodejs)_/.test(name)))).toEqual({
      http_request_duration_seconds: 'histogram',
      http_requests_in_flight: 'gauge',
      http_refusals_total: 'counter',
      platform_maintenance_level: 'gauge',
      database_pool_connections_in_use: 'gauge',
      database_pool_connections_idle: 'gauge',
      database_pool_waiting_queries: 'gauge',
      scheduled_job_run_duration_seconds: 'histogram',
      // peer-calls.test.ts.
      peer_call_duration_seconds: 'histogram',
      realtime_connections: 'gauge',
      // The areas' (area-metrics.test.ts).
      email_outbox_outcomes_total: 'counter',
      email_outbox_depth: 'gauge',
      email_campaign_messages: 'gauge',
      payment_webhook_deliveries_total: 'counter',
    });
    // prom-client's process metrics, on this instance's registry: event-loop delay, GC, memory.
    expect(scraped.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(scraped.types.get('nodejs_eventloop_lag_p99_seconds')).toBe('gauge');
    expect(scraped.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
    expect(sampleValue(scraped, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sampleValue(scraped, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('times answers by method, route pattern and status class, never by the path asked for', async () => {
    const missingUser = randomUUID();
    const unknownPath = `/v1/nothing-here/${randomUUID()}`;
    const health = await fetch(`${api}/health`);
    expect(health.status).toBe(200);
    const found = await fetch(`${api}/v1/admin/users/${staff.id}`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { id: string }).id).toBe(staff.id);
    const missing = await fetch(`${api}/v1/admin/users/${missingUser}`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not_found' });
    const unknown = await fetch(`${api}${unknownPath}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'not_found' });

    const scraped = await scrape(metricsPort);
    expect(duration(scraped, '/health', '2xx')).toBeGreaterThanOrEqual(1);
    expect(duration(scraped, '/v1/admin/users/:id', '2xx')).toBe(1);
    expect(duration(scraped, '/v1/admin/users/:id', '4xx')).toBe(1);
    expect(duration(scraped, 'unmatched', '4xx')).toBe(1);
    // Each series' +Inf bucket holds every answer it counted, and its sum is a duration.
    const labels = { method: 'GET', route: '/v1/admin/users/:id', status_class: '2xx' };
    expect(sampleValue(scraped, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(1);
    const seconds = sampleValue(scraped, 'http_request_duration_seconds_sum', labels)!;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(30);

    // Bounded label values: route patterns or `unmatched`, never a path's ids.
    const text = JSON.stringify(scraped.samples);
    for (const id of [staff.id, missingUser, unknownPath]) expect(text).not.toContain(id);
    for (const sample of samplesOf(scraped, 'http_request_duration_seconds_count')) {
      expect(sample.labels.route === 'unmatched' || t.app.hasRoute({ method: 'GET', url: sample.labels.route! })).toBe(
        true,
      );
      expect(sample.labels.route).not.toMatch(UUID);
      expect(sample.labels.status_class).toMatch(/^[1-5]xx$/);
    }
  });

  it('counts rate-limit refusals by rule, every rule present from the start', async () => {
    const before = await scrape(metricsPort);
    for (const rule of Object.keys(RATE_LIMITS))
      expect(sampleValue(before, 'http_refusals_total', { reason: 'rate_limit', rule }), rule).toBe(0);

    const join = () =>
      fetch(`${api}/v1/public/waitlist`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `metrics-${randomUUID()}@example.test` }),
      });
    for (let i = 0; i < RATE_LIMITS.waitlist.limit; i++) expect((await join()).status).toBe(202);
    const refused = await join();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const scraped = await scrape(metricsPort);
    expect(sampleValue(scraped, 'http_refusals_total', { reason: 'rate_limit', rule: 'waitlist' })).toBe(1);
    expect(sampleValue(scraped, 'http_refusals_total', { reason: 'rate_limit', rule: 'support' })).toBe(0);
    expect(duration(scraped, '/v1/public/waitlist', '2xx', 'POST')).toBe(RATE_LIMITS.waitlist.limit);
    expect(duration(scraped, '/v1/public/waitlist', '4xx', 'POST')).toBe(1);
    // Stored: the five signups, not the refused sixth.
    const stored = await t.db
      .selectFrom('waitlist_signups')
      .select('email')
      .where('email', 'like', 'metrics-%')
      .execute();
    expect(stored).toHaveLength(RATE_LIMITS.waitlist.limit);
  });

  it('shows the maintenance level and who set it, and counts what it refuses by level', async () => {
    const off = await scrape(metricsPort);
    expect(sampleValue(off, 'platform_maintenance_level', { source: 'manual' })).toBe(0);
    expect(sampleValue(off, 'platform_maintenance_level', { source: 'automatic' })).toBe(0);
    expect(sampleValue(off, 'http_refusals_total', { reason: 'maintenance', level: 'lockdown' })).toBe(0);

    const set = await fetch(`${api}/v1/admin/ops/panic`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ops.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ level: 'lockdown', reason: 'Database failover in progress' }),
    });
    expect(set.status).toBe(200);
    await eventually(() => expect(t.kernel.panic.state.level).toBe('lockdown'));
    const refused = await fetch(`${api}/v1/public/waitlist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'lockdown@example.test' }),
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      error: 'panic_mode',
      level: 'lockdown',
      reason: 'Database failover in progress',
    });

    const locked = await scrape(metricsPort);
    expect(sampleValue(locked, 'platform_maintenance_level', { source: 'manual' })).toBe(2);
    expect(sampleValue(locked, 'platform_maintenance_level', { source: 'automatic' })).toBe(0);
    expect(sampleValue(locked, 'http_refusals_total', { reason: 'maintenance', level: 'lockdown' })).toBe(1);
    expect(sampleValue(locked, 'http_refusals_total', { reason: 'maintenance', level: 'degraded' })).toBe(0);
    // A refusal of the gate is not one of the rate limiter's.
    expect(sampleValue(locked, 'http_refusals_total', { reason: 'rate_limit', rule: 'waitlist' })).toBe(1);
    expect(
      await t.db.selectFrom('waitlist_signups').select('email').where('email', '=', 'lockdown@example.test').execute(),
    ).toEqual([]);

    // The incident rules' level reads under `automatic`.
    await t.db.updateTable('ops_panic_state').set({ level: 'degraded', auto: true }).execute();
    await t.kernel.panic.refresh();
    const automatic = await scrape(metricsPort);
    expect(sampleValue(automatic, 'platform_maintenance_level', { source: 'manual' })).toBe(0);
    expect(sampleValue(automatic, 'platform_maintenance_level', { source: 'automatic' })).toBe(1);

    await t.db.updateTable('ops_panic_state').set({ level: 'off', auto: false }).execute();
    await t.kernel.panic.refresh();
    const cleared = await scrape(metricsPort);
    expect(sampleValue(cleared, 'platform_maintenance_level', { source: 'manual' })).toBe(0);
    expect(sampleValue(cleared, 'platform_maintenance_level', { source: 'automatic' })).toBe(0);
  });

  it('counts requests in flight, and the ones shed past MAX_REQUESTS_IN_FLIGHT as overload', async () => {
    held = holdRequests();
    const waiting = [1, 2, 3].map(() => fetch(`${api}/v1/public/test-held`));
    await eventually(
      async () => expect(sampleValue(await scrape(metricsPort), 'http_requests_in_flight')).toBe(3),
      5_000,
    );
    const shed = await fetch(`${api}/v1/public/test-held`);
    expect(shed.status).toBe(503);
    expect(await shed.json()).toEqual({ error: 'unavailable', details: { reason: 'overloaded' } });
    expect(shed.headers.get('retry-after')).toBe('1');
    const during = await scrape(metricsPort);
    expect(sampleValue(during, 'http_refusals_total', { reason: 'overload' })).toBe(1);
    expect(duration(during, '/v1/public/test-held', '5xx')).toBe(1);

    held.release();
    for (const answer of await Promise.all(waiting)) expect(answer.status).toBe(200);
    await eventually(async () => expect(sampleValue(await scrape(metricsPort), 'http_requests_in_flight')).toBe(0));
    expect(duration(await scrape(metricsPort), '/v1/public/test-held', '2xx')).toBe(3);
  });

  it("reports each database pool's sessions on PostgreSQL; none on the embedded database, which has no pool", async () => {
    const scraped = await scrape(metricsPort);
    const inUse = samplesOf(scraped, 'database_pool_connections_in_use');
    const idle = samplesOf(scraped, 'database_pool_connections_idle');
    const waiting = samplesOf(scraped, 'database_pool_waiting_queries');
    if (t.kernel.database.kind === 'pglite') {
      expect([...inUse, ...idle, ...waiting]).toEqual([]);
      return;
    }
    expect(inUse.map((sample) => sample.labels.pool).sort()).toEqual(['reads', 'writes']);
    expect(idle.map((sample) => sample.labels.pool).sort()).toEqual(['reads', 'writes']);
    expect(waiting.map((sample) => sample.value)).toEqual([0, 0]);
    for (const sample of [...inUse, ...idle]) expect(sample.value).toBeGreaterThanOrEqual(0);
    // Idle ones: the test app has answered and gone quiet, so its pools hold sessions open and free.
    expect(idle.reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThan(0);
  });

  it('times scheduled job runs by job and outcome, scheduled or run by staff', async () => {
    const operator = await createUser(t.db, ['settings.write']);
    const job = await t.db
      .selectFrom('scheduled_jobs')
      .select(['id', 'key'])
      .where('key', '=', 'expire-credit-lots')
      .executeTakeFirstOrThrow();
    const labels = (outcome: string) => ({ job: job.key, outcome });
    const before = await scrape(metricsPort);
    expect(samplesOf(before, 'scheduled_job_run_duration_seconds_count', { job: job.key })).toEqual([]);

    const manual = await fetch(`${api}/v1/admin/system/cron/${job.id}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator.token}` },
    });
    expect(manual.status).toBe(200);
    expect(await manual.json()).toMatchObject({ job_id: job.id, trigger: 'manual', result: 'ok' });

    // Scheduled runs, at a time only this job is due (the others' next runs are after the start).
    const at = new Date(Date.now() - 86_400_000);
    const makeDue = () =>
      t.db.updateTable('scheduled_jobs').set({ next_run_at: at }).where('id', '=', job.id).execute();
    const scheduler = (handlers = t.kernel.jobs) =>
      new JobScheduler({ db: t.db, handlers, services: jobServicesOf(t.kernel), poll: false, instanceId: 'metrics' });
    await makeDue();
    expect(await scheduler().runDueJobs(at)).toMatchObject([{ job_id: job.id, result: 'ok' }]);
    await makeDue();
    const failing = {
      ...t.kernel.jobs,
      [job.key]: async () => {
        throw new Error('the store is away');
      },
    };
    expect(await scheduler(failing).runDueJobs(at)).toMatchObject([{ job_id: job.id, result: 'error' }]);

    const scraped = await scrape(metricsPort);
    expect(sampleValue(scraped, 'scheduled_job_run_duration_seconds_count', labels('ok'))).toBe(2);
    expect(sampleValue(scraped, 'scheduled_job_run_duration_seconds_count', labels('error'))).toBe(1);
    expect(sampleValue(scraped, 'scheduled_job_run_duration_seconds_sum', labels('ok'))).toBeGreaterThanOrEqual(0);
    const stored = await t.db.selectFrom('scheduled_job_runs').select('result').where('job_id', '=', job.id).execute();
    expect(stored.map((run) => run.result).sort()).toEqual(['error', 'ok', 'ok']);
  });

  it('counts the realtime sockets open now', async () => {
    expect(sampleValue(await scrape(metricsPort), 'realtime_connections')).toBe(0);
    const first = await connected(t, staff);
    const second = await connected(t, ops);
    expect(sampleValue(await scrape(metricsPort), 'realtime_connections')).toBe(2);
    await first.close();
    await eventually(async () => expect(sampleValue(await scrape(metricsPort), 'realtime_connections')).toBe(1));
    await second.close();
    await eventually(async () => expect(sampleValue(await scrape(metricsPort), 'realtime_connections')).toBe(0));
  });

  it('serves the metrics on their own port only', async () => {
    const onApi = await fetch(`${api}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.json()).toEqual({ error: 'not_found' });
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/metrics/extra'],
      ['POST', '/metrics'],
    ] as const) {
      const answer = await fetch(`http://127.0.0.1:${metricsPort}${path}`, { method });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    // Scrapes are no requests of the API: none is timed under any route.
    const scraped = await scrape(metricsPort);
    expect(samplesOf(scraped, 'http_request_duration_seconds_count', { route: '/metrics' })).toEqual([]);
  });

  it('installs its hooks on every route', () => {
    const routes = t.app.printRoutes({ includeHooks: true });
    for (const hook of METRIC_HOOKS) expect(routes).toContain(hook);
  });

  it('closes the metrics listener with the app', async () => {
    expect(await connectionError(metricsPort)).toBeUndefined();
    closed = true;
    held.release();
    await t.close();
    expect(await connectionError(metricsPort)).toBe('ECONNREFUSED');
  });
});

describe('METRICS_PORT unset', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('measures nothing: no registry, no hook on any route, no listener', async () => {
    expect(t.kernel.metrics).toBeUndefined();
    const routes = t.app.printRoutes({ includeHooks: true });
    // The pipeline's own hooks are listed, so the listing does show hooks.
    expect(routes).toContain('onRequest');
    for (const hook of METRIC_HOOKS) expect(routes).not.toContain(hook);
    expect((await t.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });
});

describe('the metrics listener refuses to start on an address it cannot bind, naming the setting', () => {
  it('METRICS_PORT in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const listener = new MetricsListener(new Registry(), pino({ level: 'silent' }));
      const failure = await listener.listen(port, '127.0.0.1').catch((error: Error) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(
        new RegExp(`^METRICS_PORT: ${port} is already in use on 127\\.0\\.0\\.1 \\(`),
      );
      // No code: main.ts maps codes to PORT and HOST.
      expect((failure as NodeJS.ErrnoException).code).toBeUndefined();
      await listener.close();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('METRICS_HOST not an address of this machine', async () => {
    const listener = new MetricsListener(new Registry(), pino({ level: 'silent' }));
    // 192.0.2.1: TEST-NET-1 (RFC 5737), never assigned to a machine.
    const failure = await listener.listen(await closedPort(), '192.0.2.1').catch((error: Error) => error);
    expect((failure as Error).message).toMatch(/^METRICS_HOST: 192\.0\.2\.1 is not an address of this machine \(/);
  });
});
