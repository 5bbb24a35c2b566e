import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/kernel/rate-limits.js';
import { eventually, startTestApp, type TestApp } from '../helpers/app.js';
import { captureLog } from '../helpers/captured-log.js';
import type { TestDatabase } from '../helpers/database.js';
import { listening, REDIS_URL, RELIABILITY_FULL } from './fixtures.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * Rate-limit counters in one Redis shared by several instances, with Redis cut, stalled and
 * brought back through a proxy. The documented behaviour (docs/reliability.md): a counter store
 * that fails or does not answer within 1.5 s lets requests through (fail-open, logged); the
 * service keeps serving; counting resumes when Redis is back.
 *
 * Like test/kernel/rate-limits.test.ts: with TEST_REDIS_URL set (CI) this always runs; without
 * it, only when a Redis answers on the default port, and the run says so otherwise.
 */
const WITH_REDIS = process.env.TEST_REDIS_URL !== undefined || (await listening(REDIS_URL, 6379));
if (!WITH_REDIS)
  console.warn(
    `No Redis at ${REDIS_URL} and TEST_REDIS_URL unset: the Redis reliability suite is left out of this run.`,
  );

const LIMIT = RATE_LIMITS.waitlist.limit;
const WINDOW_MS = RATE_LIMITS.waitlist.windowSeconds * 1_000;
const INSTANCES = RELIABILITY_FULL ? 4 : 2;

describe.runIf(WITH_REDIS)('rate limits on a shared Redis, through a proxy', () => {
  let proxy: TcpProxy;
  let redis: Redis;
  const apps: TestApp[] = [];
  let database: TestDatabase;
  const ips: string[] = [];

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const first = await startTestApp({ config: { redisUrl: proxy.via(REDIS_URL) } });
    database = first.testDatabase!;
    apps.push(first);
    for (let i = 1; i < INSTANCES; i += 1) {
      apps.push(
        await startTestApp({
          database: await first.testDatabase!.openAnother({ pooled: true }),
          config: { redisUrl: proxy.via(REDIS_URL) },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    for (const ip of ips) {
      const keys = await redis.keys(`platform-api:rl:*:ip:${ip}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis?.disconnect();
    await proxy?.close();
  });
  beforeEach(async () => {
    proxy.pass();
    // The counters are fixed windows of a minute: a burst never straddles two of them.
    const left = WINDOW_MS - (Date.now() % WINDOW_MS);
    // A wait for a known instant (the next window), not a guess: the limiter's windows follow the real clock.
    if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  });

  const freshIp = () => {
    const ip = `10.${randomBytes(3).join('.')}`;
    ips.push(ip);
    return ip;
  };
  let signups = 0;
  const join = (app: TestApp, ip: string) =>
    app.request({
      method: 'POST',
      url: '/v1/public/waitlist',
      payload: { email: `fault-${++signups}-${randomBytes(4).toString('hex')}@example.test` },
      remoteAddress: ip,
    });
  const counter = (ip: string) => redis.get(`platform-api:rl:waitlist:ip:${ip}:${Math.floor(Date.now() / WINDOW_MS)}`);
  /** Until a request on `app` is counted in Redis again (each instance reconnects on its own schedule). */
  const countingAgain = (app: TestApp, ip: string) =>
    eventually(async () => {
      const before = Number(await counter(ip));
      await join(app, ip);
      expect(Number(await counter(ip))).toBe(before + 1);
    }, 10_000);

  it(`a concurrent burst spread over ${INSTANCES} instances: exactly the limit passes in total, the rest is 429`, async () => {
    const ip = freshIp();
    const burst = LIMIT * 4;
    const responses = await Promise.all(Array.from({ length: burst }, (_, i) => join(apps[i % apps.length]!, ip)));
    const statuses = responses.map((response) => response.statusCode);
    expect(
      statuses.filter((status) => status === 202),
      statuses.join(' '),
    ).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(burst - LIMIT);
    expect(await counter(ip)).toBe(String(burst));
  });

  it('Redis refusing connections: requests pass (fail-open) quickly on every instance, and counting resumes when it is back', async () => {
    proxy.refuse();
    const ip = freshIp();
    const started = Date.now();
    const during = await Promise.all(Array.from({ length: LIMIT * 2 }, (_, i) => join(apps[i % apps.length]!, ip)));
    expect(during.map((response) => response.statusCode)).toEqual(during.map(() => 202));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await counter(ip)).toBeNull();

    proxy.pass();
    // Each instance reconnects on its own schedule: wait until a request on each is counted.
    const back = freshIp();
    for (const app of apps) {
      await countingAgain(app, back);
    }
    // Counting is exact again: a fresh address gets the limit, then 429.
    const after = freshIp();
    const responses = [];
    for (let i = 0; i <= LIMIT; i += 1) responses.push(await join(apps[i % apps.length]!, after));
    expect(responses.map((response) => response.statusCode)).toEqual([
      ...Array.from({ length: LIMIT }, () => 202),
      429,
    ]);
  });

  it('Redis stalled (connected, never answering): requests pass within the count budget instead of hanging', async () => {
    // Connections are up before the stall, so each instance has a command in flight that never returns.
    await Promise.all(apps.map((app) => join(app, freshIp())));
    proxy.blackhole();
    const ip = freshIp();
    const started = Date.now();
    const during = await Promise.all(Array.from({ length: LIMIT * 2 }, (_, i) => join(apps[i % apps.length]!, ip)));
    expect(during.map((response) => response.statusCode)).toEqual(during.map(() => 202));
    expect(Date.now() - started).toBeLessThan(5_000);
    // Back: the stalled connections are cut (as a restarted Redis would), instances reconnect.
    proxy.pass();
    proxy.cut();
    const after = freshIp();
    await countingAgain(apps[0]!, after);
  });

  /** The lines a captured log holds about the rate-limit store, and every line at warn (40) or above. */
  type LogLine = { level: number; msg: string; reason?: string };
  const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogLine);
  const storeLines = (lines: string[]) => parsed(lines).filter((line) => line.msg.startsWith('rate-limit store'));
  const loudLines = (lines: string[]) => parsed(lines).filter((line) => line.level >= 40);
  /** Another instance on the suite's database, counting through the proxy, logging into `log`. */
  const watchedApp = async (log: ReturnType<typeof captureLog>['log']) =>
    startTestApp({
      database: await database.openAnother({ pooled: true }),
      config: { redisUrl: proxy.via(REDIS_URL) },
      log,
    });

  it('an outage is logged once when it begins, with the reason, and once when it ends: not per attempt', async () => {
    const captured = captureLog();
    const watched = await watchedApp(captured.log);
    try {
      const counted = freshIp();
      await join(watched, counted);
      expect(await counter(counted)).toBe('1');

      proxy.refuse();
      const attemptsBefore = proxy.connections;
      // Ten seconds of outage, a limited request every 250 ms: all pass (fail-open), none is counted.
      const ip = freshIp();
      const statuses: number[] = [];
      for (const end = Date.now() + 10_000; Date.now() < end; ) {
        statuses.push((await join(watched, ip)).statusCode);
        // The pace of the traffic under test, not a wait for anything.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(statuses.length).toBeGreaterThan(LIMIT * 4);
      expect(statuses).toEqual(statuses.map(() => 202));
      expect(await counter(ip)).toBeNull();
      // ioredis kept trying meanwhile (each attempt a connection the proxy reset): each used to log a line.
      const attempts = proxy.connections - attemptsBefore;
      expect(attempts).toBeGreaterThanOrEqual(5);

      proxy.pass();
      const back = freshIp();
      await countingAgain(watched, back);

      const lines = captured.lines();
      console.info(
        `Redis refused for 10 s: ${statuses.length} limited requests, ${attempts} reconnection attempts, ` +
          `${loudLines(lines).length} line(s) at warn or above`,
      );
      expect(storeLines(lines)).toEqual([
        {
          ...storeLines(lines)[0],
          level: 40,
          msg: 'rate-limit store (REDIS_URL) unavailable: requests pass uncounted until it is back',
          reason: expect.stringMatching(/ECONNRESET|connection closed|isn't writeable/),
        },
        { ...storeLines(lines)[1], level: 30, msg: 'rate-limit store (REDIS_URL) is back: requests are counted again' },
      ]);
      // Nothing else at warn or above, and no stack anywhere: the outage is one line, whatever its length.
      expect(loudLines(lines)).toHaveLength(1);
      expect(captured.text()).not.toContain('"stack"');
    } finally {
      await watched.close();
    }
  }, 40_000);

  it('a stalled Redis is one warning naming the count budget, and one line when it answers again', async () => {
    const captured = captureLog();
    const watched = await watchedApp(captured.log);
    try {
      await join(watched, freshIp());
      proxy.blackhole();
      const ip = freshIp();
      const during = await Promise.all(Array.from({ length: LIMIT * 2 }, () => join(watched, ip)));
      expect(during.map((response) => response.statusCode)).toEqual(during.map(() => 202));
      proxy.pass();
      proxy.cut();
      const back = freshIp();
      await countingAgain(watched, back);
      const lines = captured.lines();
      const store = storeLines(lines);
      const levelsAndReasons = store.map((line) => [line.level, line.reason]);
      expect(levelsAndReasons).toEqual([
        [40, 'no answer within 1500 ms'],
        [30, undefined],
      ]);
      expect(loudLines(lines)).toHaveLength(1);
      expect(captured.text()).not.toContain('"stack"');
    } finally {
      await watched.close();
    }
  }, 30_000);
});
