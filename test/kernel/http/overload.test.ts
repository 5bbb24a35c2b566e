import { request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { waitFor } from '../../helpers/waiting.js';

/**
 * Load shedding (src/kernel/overload.ts): past MAX_REQUESTS_IN_FLIGHT requests under way, a new
 * one is answered 503 `unavailable` / `overloaded` at once, before any work. A probe route holds
 * requests in flight until the test lets them go.
 */

const LIMIT = 3;

describe('load shedding past MAX_REQUESTS_IN_FLIGHT', () => {
  let t: TestApp;
  let player: TestUser;
  let release: () => void = () => {};
  let held: Promise<void> = Promise.resolve();
  let reached = 0;
  /** The response of the latest request the probe route held. */
  let heldResponse: ServerResponse | undefined;

  const hold = () => {
    held = new Promise((resolve) => {
      release = resolve;
    });
  };

  beforeAll(async () => {
    t = await startTestApp({
      config: { maxRequestsInFlight: LIMIT },
      extraRoutes: (app) => {
        app.get('/v1/public/test-held', async (_request, reply) => {
          reached += 1;
          heldResponse = reply.raw;
          await held;
          return { ok: true };
        });
      },
    });
    player = await createUser(t.db);
  });
  afterEach(() => release());
  afterAll(async () => {
    await t?.close();
  });

  const inFlight = () => t.kernel.load.inFlight;
  const holdFull = async () => {
    hold();
    reached = 0;
    const answers = Array.from({ length: LIMIT }, () => t.request({ method: 'GET', url: '/v1/public/test-held' }));
    await eventually(() => expect(reached).toBe(LIMIT));
    expect(inFlight()).toBe(LIMIT);
    return answers;
  };

  it('refuses a request past the limit with 503 overloaded and Retry-After: 1, then admits again once one finishes', async () => {
    const answers = await holdFull();

    const refused = await t.request({ method: 'GET', url: '/v1/public/site', headers: { 'x-request-id': 'shed-1' } });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ error: 'unavailable', details: { reason: 'overloaded' } });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toBe('shed-1');
    expect(inFlight()).toBe(LIMIT);

    release();
    for (const answer of await Promise.all(answers)) {
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ ok: true });
    }
    expect(inFlight()).toBe(0);
    expect((await t.request({ method: 'GET', url: '/v1/public/site' })).statusCode).toBe(200);
  });

  it('refuses before any work: no token check, no write, nothing audited', async () => {
    const answers = await holdFull();

    // A bad token would be 401 if it were checked.
    const badToken = await t.request({ method: 'GET', url: '/v1/me', token: 'not-a-token' });
    expect(badToken.statusCode).toBe(503);
    expect(badToken.json()).toEqual({ error: 'unavailable', details: { reason: 'overloaded' } });

    const before = await t.db
      .selectFrom('users')
      .select(['display_name', 'updated_at'])
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    const patch = await t.request({
      method: 'PATCH',
      url: '/v1/me',
      token: player.token,
      payload: { display_name: 'Shed Write' },
    });
    expect(patch.statusCode).toBe(503);
    expect(
      await t.db
        .selectFrom('users')
        .select(['display_name', 'updated_at'])
        .where('id', '=', player.id)
        .executeTakeFirstOrThrow(),
    ).toEqual(before);

    release();
    await Promise.all(answers);
    expect(inFlight()).toBe(0);
  });

  it('always admits /health, uncounted', async () => {
    const answers = await holdFull();
    const health = await t.request({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok' });
    expect(inFlight()).toBe(LIMIT);
    release();
    await Promise.all(answers);
  });

  it('counts every kind of answer out again: errors, refusals, unknown routes', async () => {
    const requests = [
      () => t.request({ method: 'GET', url: '/v1/me' }),
      () => t.request({ method: 'GET', url: '/v1/me', token: 'not-a-token' }),
      () => t.request({ method: 'GET', url: '/no/such/route' }),
      () => t.request({ method: 'PATCH', url: '/v1/me', token: player.token, payload: { display_name: 42 } }),
      () => t.request({ method: 'GET', url: '/v1/me', token: player.token }),
    ];
    const statuses: number[] = [];
    // One at a time: each must leave the count at 0 (five at once would be two past the limit).
    for (const send of requests) {
      statuses.push((await send()).statusCode);
      expect(inFlight()).toBe(0);
    }
    expect(statuses).toEqual([401, 401, 404, 400, 200]);
  });

  it('counts a request out when its client goes away before the answer, and only once', async () => {
    // Over a socket (inject has none to close); app.close() in afterAll stops the listener.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    {
      hold();
      reached = 0;
      heldResponse = undefined;
      const { port } = t.app.server.address() as AddressInfo;
      const abandoned = httpRequest({ host: '127.0.0.1', port, path: '/v1/public/test-held' });
      abandoned.on('error', () => {});
      abandoned.end();
      await eventually(() => expect(reached).toBe(1));
      expect(inFlight()).toBe(1);
      abandoned.destroy();
      await eventually(() => expect(inFlight()).toBe(0));

      // The handler finishing later does not count it out a second time.
      release();
      // Its answer goes all the way out, into the closed response: nothing more happens to it.
      await waitFor(() => heldResponse?.writableEnded === true, 'the late answer to be written');
      expect(inFlight()).toBe(0);
      expect((await t.request({ method: 'GET', url: '/v1/public/site' })).statusCode).toBe(200);
      expect(inFlight()).toBe(0);
    }
  });
});
