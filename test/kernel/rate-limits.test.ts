import { connect } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import {
  MemoryCounterStore,
  RATE_LIMITS,
  RateLimiter,
  RedisCounterStore,
  type CounterStore,
  type RateLimitName,
} from '../../src/kernel/rate-limits.js';
import type { ZodApp } from '../../src/kernel/http/zod-app.js';
import { createUser, startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { signToken } from '../helpers/tokens.js';

/** Spec "Limits": fixed windows, per user when signed in, per client IP otherwise. */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Is anything listening where Redis should be? */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * With TEST_REDIS_URL set (CI sets it) the Redis suites always run and fail if Redis is down.
 * Without it they run when a Redis answers on the default port; a bare machine (the README's
 * two commands on a fresh clone) has none, and says so here.
 */
const WITH_REDIS = process.env.TEST_REDIS_URL !== undefined || (await listening(REDIS_URL));
if (!WITH_REDIS)
  console.warn(
    `No Redis at ${REDIS_URL} and TEST_REDIS_URL unset: the Redis counter-store suites are left out of this run.`,
  );
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** A moment well inside a window, so a run never straddles a window edge by accident. */
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

const windowEnd = (now: number, windowMs: number) => (Math.floor(now / windowMs) + 1) * windowMs;
const retryAfterAt = (now: number, windowMs: number) => String(Math.ceil((windowEnd(now, windowMs) - now) / 1_000));

/** The refusal a consume() threw, as plain values (or null when it passed). */
async function outcome(promise: Promise<void>) {
  try {
    await promise;
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    return { status: appError.status, code: appError.code, headers: appError.headers, body: appError.toBody() };
  }
}

const refused = (retryAfter: string, status = 429, code = 'rate_limited') => ({
  status,
  code,
  headers: { 'retry-after': retryAfter },
  body: { error: code },
});

/** The same window rules, whichever store counts. */
function limiterSuite(name: string, makeStore: (now: () => number) => CounterStore) {
  describe(name, () => {
    let now = T0;
    let store: CounterStore;
    let limiter: RateLimiter;
    let storeErrors: unknown[];
    const clock = () => now;

    beforeEach(() => {
      now = T0;
      store = makeStore(clock);
      storeErrors = [];
      limiter = new RateLimiter(store, (error) => storeErrors.push(error), clock);
    });
    // A store error would let requests through silently: none may happen here.
    afterEach(() => {
      expect(storeErrors).toEqual([]);
    });

    /** `count` requests in a row; the outcome of each. */
    async function burst(limit: RateLimitName, subject: string, count: number) {
      const results = [];
      for (let i = 0; i < count; i += 1) results.push(await outcome(limiter.consume(limit, subject)));
      return results;
    }

    it.each([
      { limit: 'waitlist' as const, at: T0 + 15_000, retryAfter: '45' },
      { limit: 'deviceCode' as const, at: T0, retryAfter: '60' },
      { limit: 'deviceApprove' as const, at: T0 + 59_999, retryAfter: '1' },
      { limit: 'unsubscribe' as const, at: T0 + 58_500, retryAfter: '2' },
      { limit: 'support' as const, at: T0 + 20 * MINUTE, retryAfter: '2400' },
    ])(
      '$limit: the limit passes, one more is 429 rate_limited with Retry-After $retryAfter',
      async ({ limit, at, retryAfter }) => {
        now = at;
        const rule = RATE_LIMITS[limit];
        const results = await burst(limit, `ip:${randomUUID()}`, rule.limit + 2);
        expect(results.slice(0, rule.limit)).toEqual(Array(rule.limit).fill(null));
        expect(results.slice(rule.limit)).toEqual([refused(retryAfter), refused(retryAfter)]);
      },
    );

    it('deviceToken: 30 pass, the 31st is 400 slow_down', async () => {
      const results = await burst('deviceToken', 'ip:198.51.100.1', 31);
      expect(results.filter((r) => r === null)).toHaveLength(30);
      expect(results[30]).toEqual(refused('60', 400, 'slow_down'));
    });

    it('a new window starts from zero; the last millisecond of a window still counts in it', async () => {
      const subject = `ip:${randomUUID()}`;
      now = T0 + 30_000;
      expect(await burst('waitlist', subject, 5)).toEqual(Array(5).fill(null));
      now = T0 + MINUTE - 1;
      expect(await outcome(limiter.consume('waitlist', subject))).toEqual(refused('1'));
      now = T0 + MINUTE;
      expect(await burst('waitlist', subject, 6)).toEqual([...Array(5).fill(null), refused('60')]);
      // An hour window keeps counting across minutes, and resets on the hour.
      now = T0;
      expect(await burst('support', 'user:u1', 5)).toEqual(Array(5).fill(null));
      now = T0 + 59 * MINUTE;
      expect(await outcome(limiter.consume('support', 'user:u1'))).toEqual(refused('60'));
      now = T0 + HOUR;
      expect(await outcome(limiter.consume('support', 'user:u1'))).toBeNull();
    });

    it('counts each subject and each limit separately', async () => {
      const alice = `ip:${randomUUID()}`;
      const bob = `ip:${randomUUID()}`;
      expect(await burst('waitlist', alice, 6)).toEqual([...Array(5).fill(null), refused('60')]);
      // Another subject on the same limit, and the same subject on another limit, still pass.
      expect(await burst('waitlist', bob, 5)).toEqual(Array(5).fill(null));
      expect(await burst('unsubscribe', alice, 5)).toEqual(Array(5).fill(null));
      expect(await burst('deviceCode', alice, 3)).toEqual(Array(3).fill(null));
      // And alice is still refused on the limit she used up.
      expect(await outcome(limiter.consume('waitlist', alice))).toEqual(refused('60'));
    });

    it('counts concurrent requests exactly once each', async () => {
      const subject = `ip:${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 12 }, () => outcome(limiter.consume('waitlist', subject))),
      );
      expect(results.filter((r) => r === null)).toHaveLength(5);
      expect(results.filter((r) => r !== null)).toEqual(Array(7).fill(refused('60')));
    });
  });
}

limiterSuite('RateLimiter on MemoryCounterStore', (now) => new MemoryCounterStore(now));

describe('RateLimiter: a used-up window is remembered', () => {
  it('refuses the rest of the window without asking the store, then counts again in the next', async () => {
    let now = T0 + 15_000;
    const clock = () => now;
    const memory = new MemoryCounterStore(clock);
    let asked = 0;
    const store: CounterStore = {
      increment: (key, windowMs) => {
        asked += 1;
        return memory.increment(key, windowMs);
      },
      close: () => memory.close(),
    };
    const limiter = new RateLimiter(store, () => {}, clock);
    const subject = `ip:${randomUUID()}`;
    for (let i = 0; i < 6; i += 1) await outcome(limiter.consume('waitlist', subject));
    expect(asked).toBe(6);
    expect(limiter.knownRefusal('waitlist', subject)?.toBody()).toEqual({ error: 'rate_limited' });
    now = T0 + 50_000;
    expect(await outcome(limiter.consume('waitlist', subject))).toEqual(refused('10'));
    expect(limiter.knownRefusal('waitlist', subject)?.headers).toEqual({ 'retry-after': '10' });
    expect(asked).toBe(6);
    // Another subject, and the same subject on another limit, are not refused by it.
    expect(limiter.knownRefusal('waitlist', `ip:${randomUUID()}`)).toBeUndefined();
    expect(limiter.knownRefusal('unsubscribe', subject)).toBeUndefined();
    now = T0 + MINUTE;
    expect(limiter.knownRefusal('waitlist', subject)).toBeUndefined();
    expect(await outcome(limiter.consume('waitlist', subject))).toBeNull();
    expect(asked).toBe(7);
  });
});

describe.runIf(WITH_REDIS)('Redis', () => {
  // One prefix per run: parallel runs and leftovers never meet.
  const prefix = `platform-api-test:${process.pid}:${randomUUID()}:`;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    expect(await redis.keys(`${prefix}*`)).toEqual([]);
    redis.disconnect();
  });

  limiterSuite('RateLimiter on RedisCounterStore', (now) => new RedisCounterStore(redis, { prefix, now }));

  it('RedisCounterStore: one key per window under its prefix, expiring just after the window', async () => {
    const now = T0 + 45_000;
    const store = new RedisCounterStore(redis, { prefix, now: () => now });
    const key = `waitlist:ip:203.0.113.1:${Math.floor(now / MINUTE)}`;
    expect(await store.increment(key, MINUTE)).toEqual({ count: 1, resetInMs: 15_000 });
    expect(await store.increment(key, MINUTE)).toEqual({ count: 2, resetInMs: 15_000 });
    expect(await redis.get(prefix + key)).toBe('2');
    const ttl = await redis.pttl(prefix + key);
    // Window end (15 s away) plus one second of slack, set once by the first increment.
    expect(ttl).toBeGreaterThan(14_000);
    expect(ttl).toBeLessThanOrEqual(16_000);
  });
});

describe('RateLimiter with a failing store', () => {
  it('lets the request through and reports the error (fail-open)', async () => {
    const failure = new Error('store down');
    const errors: unknown[] = [];
    const limiter = new RateLimiter(
      { increment: () => Promise.reject(failure), close: async () => {} },
      (error) => errors.push(error),
      () => T0,
    );
    for (let i = 0; i < 10; i += 1)
      await expect(limiter.consume('waitlist', 'ip:203.0.113.5')).resolves.toBeUndefined();
    expect(errors).toEqual(Array(10).fill(failure));
  });
});

/** Probe routes naming a limit, as later routes will; each counts how often its handler ran. */
function probeRoutes(calls: { waitlist: number; support: number }) {
  return (app: ZodApp) => {
    app.post('/v1/public/test-waitlist', { config: { rateLimit: 'waitlist' } }, async () => {
      calls.waitlist += 1;
      return { ok: true };
    });
    app.post('/v1/me/test-support', { config: { rateLimit: 'support' } }, async () => {
      calls.support += 1;
      return { ok: true };
    });
  };
}

/** Unique per run, so Redis counters of other runs never count against these requests. */
const randomIp = () =>
  `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

function expectOk(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ ok: true });
}

function expect429(response: LightMyRequestResponse, retryAfter: string, requestId: string) {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toEqual({ error: 'rate_limited' });
  expect(response.headers['retry-after']).toBe(retryAfter);
  expect(response.headers['x-request-id']).toBe(requestId);
}

describe('through the app', () => {
  // The apps' clock (Date only; timers run for real) stands still 10 s into a minute, near real
  // time, so Retry-After is exact. Installed before the apps start: they capture Date.now.
  const now = Math.ceil(Date.now() / MINUTE) * MINUTE + 10_000;
  // One database for every app below, as instances of one service share theirs.
  let database: TestDatabase;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    database = await createTestDatabase();
  });
  beforeEach(() => {
    vi.setSystemTime(now);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await database?.drop();
  });

  describe('memory store (default)', () => {
    let t: TestApp;
    const calls = { waitlist: 0, support: 0 };
    beforeAll(async () => {
      t = await startTestApp({ database: await database.openAnother(), extraRoutes: probeRoutes(calls) });
    });
    afterAll(async () => {
      await t?.close();
    });

    const waitlist = (ip: string, requestId?: string) =>
      t.request({
        method: 'POST',
        url: '/v1/public/test-waitlist',
        payload: {},
        remoteAddress: ip,
        headers: requestId ? { 'x-request-id': requestId } : {},
      });
    const support = (token: string, ip = '203.0.113.50', requestId?: string) =>
      t.request({
        method: 'POST',
        url: '/v1/me/test-support',
        payload: {},
        token,
        remoteAddress: ip,
        headers: requestId ? { 'x-request-id': requestId } : {},
      });

    it('public route, keyed by IP: 5 pass, the 6th is 429; another IP still passes; the next window resets', async () => {
      const ip = '198.51.100.7';
      const before = calls.waitlist;
      for (let i = 0; i < 5; i += 1) expectOk(await waitlist(ip));
      expect429(await waitlist(ip, 'wl-6'), '50', 'wl-6');
      expect429(await waitlist(ip, 'wl-7'), '50', 'wl-7');
      // The refused requests never reached the handler.
      expect(calls.waitlist - before).toBe(5);

      // A signed-in caller on a public route is still counted by IP.
      const player = await createUser(t.db);
      const signedIn = await t.request({
        method: 'POST',
        url: '/v1/public/test-waitlist',
        payload: {},
        token: player.token,
        remoteAddress: ip,
        headers: { 'x-request-id': 'wl-token' },
      });
      expect429(signedIn, '50', 'wl-token');

      expectOk(await waitlist('198.51.100.8'));

      vi.setSystemTime(now + 50_000);
      for (let i = 0; i < 5; i += 1) expectOk(await waitlist(ip));
      expect429(await waitlist(ip, 'wl-next'), '60', 'wl-next');
      expect(calls.waitlist - before).toBe(11);
    });

    it('signed-in route, keyed by user: 5 pass, the 6th is 429 from any IP; another user still passes', async () => {
      const alice = await createUser(t.db);
      const bob = await createUser(t.db);
      const before = calls.support;
      for (let i = 0; i < 5; i += 1) expectOk(await support(alice.token, `203.0.113.${i + 1}`));
      const retryAfter = retryAfterAt(now, HOUR);
      expect429(await support(alice.token, '203.0.113.1', 'sup-6'), retryAfter, 'sup-6');
      expect429(await support(alice.token, '192.0.2.99', 'sup-new-ip'), retryAfter, 'sup-new-ip');
      // A new token of the same user is the same user.
      const aliceAgain = await signToken({ sub: alice.id, email: alice.email });
      expect429(await support(aliceAgain, '203.0.113.1', 'sup-new-token'), retryAfter, 'sup-new-token');
      expect(calls.support - before).toBe(5);

      // Bob, from alice's IP, still passes.
      for (let i = 0; i < 5; i += 1) expectOk(await support(bob.token, '203.0.113.1'));
      expect(calls.support - before).toBe(10);
    });

    it('authentication comes first: a refused token is 401 and does not use up the limit', async () => {
      const carol = await createUser(t.db);
      for (let i = 0; i < 10; i += 1) {
        const anonymous = await t.request({
          method: 'POST',
          url: '/v1/me/test-support',
          payload: {},
          remoteAddress: '203.0.113.77',
        });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toEqual({ error: 'missing_token' });
      }
      for (let i = 0; i < 5; i += 1) expectOk(await support(carol.token, '203.0.113.77'));
    });
  });

  describe('a store that throws', () => {
    let t: TestApp;
    const calls = { waitlist: 0, support: 0 };
    const failing: CounterStore = {
      increment: () => Promise.reject(new Error('counter store down')),
      close: async () => {},
    };
    beforeAll(async () => {
      t = await startTestApp({
        database: await database.openAnother(),
        counterStore: failing,
        extraRoutes: probeRoutes(calls),
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('lets every request through (fail-open)', async () => {
      const player = await createUser(t.db);
      for (let i = 0; i < 8; i += 1) {
        expectOk(
          await t.request({
            method: 'POST',
            url: '/v1/public/test-waitlist',
            payload: {},
            remoteAddress: '198.51.100.9',
          }),
        );
        expectOk(await t.request({ method: 'POST', url: '/v1/me/test-support', payload: {}, token: player.token }));
      }
      expect(calls).toEqual({ waitlist: 8, support: 8 });
    });
  });

  describe.runIf(WITH_REDIS)('with redisUrl: counters shared by every instance', () => {
    let a: TestApp;
    let b: TestApp;
    let redis: Redis;
    const calls = { waitlist: 0, support: 0 };
    const ips: string[] = [];

    // biome-ignore lint/suspicious/noDuplicateTestHooks: a hook of this describe.runIf block, which Biome does not see as one
    beforeAll(async () => {
      redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      a = await startTestApp({
        database: await database.openAnother(),
        config: { redisUrl: REDIS_URL },
        extraRoutes: probeRoutes(calls),
      });
      b = await startTestApp({
        database: await database.openAnother(),
        config: { redisUrl: REDIS_URL },
        extraRoutes: probeRoutes(calls),
      });
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: a hook of this describe.runIf block, which Biome does not see as one
    afterAll(async () => {
      await b?.close();
      await a?.close();
      for (const ip of ips) {
        const keys = await redis.keys(`platform-api:rl:*:ip:${ip}:*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      redis.disconnect();
    });

    it('3 requests on A and 3 on B: the 6th is refused, and A refuses too', async () => {
      const ip = randomIp();
      ips.push(ip);
      const send = (app: TestApp, requestId?: string) =>
        app.request({
          method: 'POST',
          url: '/v1/public/test-waitlist',
          payload: {},
          remoteAddress: ip,
          headers: requestId ? { 'x-request-id': requestId } : {},
        });
      for (let i = 0; i < 3; i += 1) expectOk(await send(a));
      for (let i = 0; i < 2; i += 1) expectOk(await send(b));
      expect429(await send(b, 'redis-6'), '50', 'redis-6');
      expect429(await send(a, 'redis-7'), '50', 'redis-7');
      expect(calls.waitlist).toBe(5);
      // The shared counter in Redis, under the service's prefix and this window's number.
      expect(await redis.get(`platform-api:rl:waitlist:ip:${ip}:${Math.floor(now / MINUTE)}`)).toBe('7');
      // Another IP is untouched.
      const other = randomIp();
      ips.push(other);
      expectOk(await a.request({ method: 'POST', url: '/v1/public/test-waitlist', payload: {}, remoteAddress: other }));
    });
  });

  describe.runIf(WITH_REDIS)('REDIS_KEY_PREFIX: two deployments sharing one Redis', () => {
    // Each deployment's prefix is unique to this run, so no other run's counters meet these.
    const run = `platform-api-test:${process.pid}:${randomUUID()}:`;
    const prefixes = { eu: `${run}eu:rl:`, us: `${run}us:rl:` };
    let eu: TestApp;
    let us: TestApp;
    let redis: Redis;
    const calls = { waitlist: 0, support: 0 };

    // biome-ignore lint/suspicious/noDuplicateTestHooks: a hook of this describe.runIf block, which Biome does not see as one
    beforeAll(async () => {
      redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      const deployment = async (redisKeyPrefix: string) =>
        startTestApp({
          database: await database.openAnother(),
          config: { redisUrl: REDIS_URL, redisKeyPrefix },
          extraRoutes: probeRoutes(calls),
        });
      eu = await deployment(prefixes.eu);
      us = await deployment(prefixes.us);
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: a hook of this describe.runIf block, which Biome does not see as one
    afterAll(async () => {
      await us?.close();
      await eu?.close();
      const keys = await redis.keys(`${run}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    it('the same client on both is counted by each, under its own prefix, nothing under the default one', async () => {
      const ip = randomIp();
      const send = (app: TestApp, requestId?: string) =>
        app.request({
          method: 'POST',
          url: '/v1/public/test-waitlist',
          payload: {},
          remoteAddress: ip,
          headers: requestId ? { 'x-request-id': requestId } : {},
        });
      for (let i = 0; i < 5; i += 1) expectOk(await send(eu));
      expect429(await send(eu, 'eu-6'), '50', 'eu-6');
      // The other deployment has counted nothing of this client yet: its whole limit passes.
      for (let i = 0; i < 5; i += 1) expectOk(await send(us));
      expect429(await send(us, 'us-6'), '50', 'us-6');
      expect(calls.waitlist).toBe(10);
      const key = `waitlist:ip:${ip}:${Math.floor(now / MINUTE)}`;
      expect(await redis.get(prefixes.eu + key)).toBe('6');
      expect(await redis.get(prefixes.us + key)).toBe('6');
      expect(await redis.get(`platform-api:rl:${key}`)).toBeNull();
    });
  });

  describe('with redisUrl pointing at a Redis that is down', () => {
    let t: TestApp;
    const calls = { waitlist: 0, support: 0 };
    beforeAll(async () => {
      t = await startTestApp({
        database: await database.openAnother(),
        config: { redisUrl: 'redis://127.0.0.1:1' },
        extraRoutes: probeRoutes(calls),
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('requests pass (fail-open)', async () => {
      for (let i = 0; i < 7; i += 1)
        expectOk(
          await t.request({
            method: 'POST',
            url: '/v1/public/test-waitlist',
            payload: {},
            remoteAddress: '198.51.100.10',
          }),
        );
      expect(calls.waitlist).toBe(7);
    });
  });
});
