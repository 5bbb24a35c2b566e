import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanicLevel } from '../../src/db/tables.js';
import { PanicMonitor } from '../../src/kernel/maintenance.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { expectRefusedUnchanged } from '../helpers/expectations.js';
import { storedState } from '../helpers/stored-state.js';

/**
 * Spec "Limits → Maintenance mode" and operation 12 `setOpsPanicMode`. The gate decides by
 * method and path before routing and authentication: a refused request is 503 `panic_mode`
 * whether or not its route exists yet; an allowed one reaches routing (404 `not_found` for a
 * route of a later issue, or the route's real answer).
 */

type Who = 'anonymous' | 'player' | 'staff';

const LEVELS: PanicLevel[] = ['off', 'degraded', 'lockdown'];
const REASONS: Record<PanicLevel, string> = {
  off: 'All clear again',
  degraded: 'Payment provider incident',
  lockdown: 'Database failover in progress',
};

function panicBody(level: PanicLevel, reason: string | null) {
  return { error: 'panic_mode', level, reason };
}

/** The spec's 503: exact body, Retry-After 30, and the request id echoed. */
function expectPanicRefusal(
  response: LightMyRequestResponse,
  level: PanicLevel,
  reason: string | null,
  requestId: string,
) {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.json()).toEqual(panicBody(level, reason));
  expect(response.headers['retry-after']).toBe('30');
  expect(response.headers['x-request-id']).toBe(requestId);
}

/** Passed the gate: not the panic body; a route that does not exist yet answers the plain 404. */
function expectPastTheGate(
  t: TestApp,
  method: HTTPMethods,
  url: string,
  response: LightMyRequestResponse,
  requestId: string,
) {
  expect(response.headers['x-request-id']).toBe(requestId);
  expect(response.headers['retry-after']).toBeUndefined();
  const body = response.json();
  expect(body.error).not.toBe('panic_mode');
  if (!t.app.hasRoute({ method, url: url.split('?', 1)[0]! })) {
    expect(response.statusCode).toBe(404);
    expect(body).toEqual({ error: 'not_found' });
  }
}

/**
 * `target` (a database handle, and every query builder made from it) whose queries hand back their
 * answers only once `hold` resolves: after the query is done and its session given back.
 */
function answersHeldBy<T extends object>(target: T, hold: () => Promise<void>): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (typeof property === 'string' && property.startsWith('execute'))
          return Promise.resolve(result).then(async (answer) => {
            await hold();
            return answer;
          });
        const isBuilder = typeof result === 'object' && result !== null && 'execute' in result;
        return isBuilder ? answersHeldBy(result, hold) : result;
      };
    },
  });
}

async function setLevel(t: TestApp, staff: TestUser, level: PanicLevel, reason = REASONS[level]) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/admin/ops/panic',
    token: staff.token,
    payload: { level, reason },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().panic).toMatchObject({ level, reason });
  return response;
}

describe('maintenance gate: each level × each kind of request', () => {
  let t: TestApp;
  let ops: TestUser;
  let player: TestUser;
  let staff: TestUser;
  let counter = 0;

  interface Probe {
    name: string;
    method: HTTPMethods;
    url: string;
    who: Who;
    payload?: () => Record<string, unknown>;
    refusedAt: PanicLevel[];
    /** For routes that exist today: their real answer once past the gate. */
    answer?: (response: LightMyRequestResponse, sent: Record<string, unknown> | undefined) => Promise<void>;
  }

  const probes: Probe[] = [
    { name: 'public read', method: 'GET', url: '/v1/public/site', who: 'anonymous', refusedAt: [] },
    {
      name: 'public write',
      method: 'POST',
      url: '/v1/public/waitlist',
      who: 'anonymous',
      payload: () => ({ email: 'fan@example.test' }),
      refusedAt: ['lockdown'],
    },
    {
      name: 'me read',
      method: 'GET',
      url: '/v1/me',
      who: 'player',
      refusedAt: [],
      answer: async (response) => {
        expect(response.statusCode, response.body).toBe(200);
        const row = await t.db.selectFrom('users').selectAll().where('id', '=', player.id).executeTakeFirstOrThrow();
        expect(response.json()).toEqual({
          id: player.id,
          email: player.email,
          // The 'me write' row (PATCH /v1/me) may have renamed the player at a level that lets it through.
          display_name: row.display_name,
          provider: null,
          status: 'active',
          tier: null,
          locale: null,
          timezone: null,
          avatar_url: null,
          marketing_opt_in: true,
          created_at: row.created_at.toISOString(),
          last_seen_at: row.last_seen_at?.toISOString() ?? null,
          profile_updated_at: row.profile_updated_at?.toISOString() ?? null,
        });
      },
    },
    {
      name: 'me write',
      method: 'PATCH',
      url: '/v1/me',
      who: 'player',
      payload: () => ({ display_name: 'New name' }),
      refusedAt: ['lockdown'],
    },
    {
      name: 'new game session',
      method: 'POST',
      url: '/v1/me/sessions',
      who: 'player',
      payload: () => ({ game_id: 1 }),
      refusedAt: ['degraded', 'lockdown'],
    },
    {
      name: 'stop game session',
      method: 'POST',
      url: '/v1/me/sessions/stop',
      who: 'player',
      payload: () => ({}),
      refusedAt: [],
    },
    {
      name: 'checkout',
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      who: 'player',
      payload: () => ({
        priceId: 'price_123',
        successUrl: 'https://example.test/ok',
        cancelUrl: 'https://example.test/cancel',
      }),
      refusedAt: ['degraded', 'lockdown'],
    },
    {
      name: 'staff write',
      method: 'POST',
      url: '/v1/admin/roles',
      who: 'staff',
      payload: () => ({ key: `maint-role-${++counter}`, name: `Maintenance probe ${counter}` }),
      refusedAt: [],
      answer: async (response, sent) => {
        expect(response.statusCode, response.body).toBe(201);
        const { id } = response.json();
        expect(response.json()).toEqual({ id: expect.any(String) });
        const row = await t.db
          .selectFrom('roles')
          .select(['id', 'key', 'name'])
          .where('id', '=', id)
          .executeTakeFirst();
        expect(row).toEqual({ id, key: sent!.key, name: sent!.name });
      },
    },
    {
      name: 'health',
      method: 'GET',
      url: '/health',
      who: 'anonymous',
      refusedAt: [],
      answer: async (response) => {
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ status: 'ok', database: 'ok' });
      },
    },
  ];

  /** What a refused request must leave alone: the users (sightings included), roles, audit and outbox. */
  const gateState = () =>
    storedState(t.db, { users: ['id'], login_sessions: ['user_id', 'session_id'], roles: ['id'] }, [
      'audit_log',
      'event_outbox',
    ]);

  beforeAll(async () => {
    t = await startTestApp();
    ops = await createUser(t.db, ['ops.panic']);
    player = await createUser(t.db);
    staff = await createUser(t.db, ['roles.write']);
    // The player's first signed-in request records a sighting; later reads of the state then stay put.
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  for (const level of LEVELS) {
    describe(`at ${level}`, () => {
      beforeAll(async () => {
        await setLevel(t, ops, level);
      });

      it.each(
        probes.map((probe) => ({ ...probe, outcome: probe.refusedAt.includes(level) ? 'refused (503)' : 'passes' })),
      )('$name: $method $url $outcome', async (probe) => {
        const token = probe.who === 'player' ? player.token : probe.who === 'staff' ? staff.token : undefined;
        const sent = probe.payload?.();
        const requestId = `maint-${level}-${++counter}`;
        const send = () =>
          t.request({
            method: probe.method,
            url: probe.url,
            token,
            payload: sent,
            headers: { 'x-request-id': requestId },
          });
        if (probe.refusedAt.includes(level)) {
          const response = await expectRefusedUnchanged(gateState, send, 503, panicBody(level, REASONS[level]));
          expectPanicRefusal(response, level, REASONS[level], requestId);
        } else {
          const response = await send();
          expectPastTheGate(t, probe.method, probe.url, response, requestId);
          await probe.answer?.(response, sent);
        }
      });
    });
  }

  describe('the gate reads method and path the way the router does', () => {
    const cases: Array<{ level: PanicLevel; method: HTTPMethods; url: string; refused: boolean; noRoute?: true }> = [
      // Trailing slash, query string and percent-escapes reach the same route, so the same verdict.
      { level: 'degraded', method: 'POST', url: '/v1/me/sessions/', refused: true },
      { level: 'degraded', method: 'POST', url: '/v1/me/sessions?game=1', refused: true },
      { level: 'degraded', method: 'POST', url: '/v1/me/%73essions', refused: true },
      { level: 'degraded', method: 'POST', url: '/v1/me/billing/checkout-session/?x=1', refused: true },
      { level: 'degraded', method: 'POST', url: '/v1/me/b%69lling/checkout-session', refused: true },
      // degraded refuses only those two: other client writes pass.
      { level: 'degraded', method: 'POST', url: '/v1/me/support', refused: false },
      { level: 'degraded', method: 'DELETE', url: '/v1/me/sessions/abc', refused: false },
      { level: 'degraded', method: 'POST', url: '/v1/me/sessions/stop', refused: false },
      // lockdown: every write method under /v1/public and /v1/me, but not the stop route. The gate
      // decides on the route the router matched: a path no route serves is 404 at every level.
      { level: 'lockdown', method: 'PUT', url: '/v1/me/avatar', refused: false, noRoute: true },
      { level: 'lockdown', method: 'DELETE', url: '/v1/me/sessions/abc', refused: true },
      { level: 'lockdown', method: 'POST', url: '/v1/public/device/token', refused: true },
      { level: 'lockdown', method: 'POST', url: '/v1/public', refused: false, noRoute: true },
      { level: 'lockdown', method: 'POST', url: '/v1/me/sessions/stop/', refused: false },
      { level: 'lockdown', method: 'POST', url: '/v1/me/sessions/stop?now=1', refused: false },
      { level: 'lockdown', method: 'POST', url: '/v1/me/sessions/stop/extra', refused: false, noRoute: true },
      { level: 'lockdown', method: 'POST', url: '/v1/me/%73essions/stop/extra', refused: false, noRoute: true },
      // Reads of every kind pass.
      { level: 'lockdown', method: 'HEAD', url: '/v1/public/site', refused: false },
      { level: 'lockdown', method: 'OPTIONS', url: '/v1/me', refused: false },
      // Outside the client areas: staff, webhooks, anything else.
      { level: 'lockdown', method: 'DELETE', url: '/v1/admin/things/1', refused: false },
      { level: 'lockdown', method: 'POST', url: '/v1/webhooks/payments', refused: false },
      { level: 'lockdown', method: 'POST', url: '/v1/mega', refused: false },
      { level: 'lockdown', method: 'POST', url: '/v1/publicity', refused: false },
    ];

    it.each(cases)('$level: $method $url refused=$refused', async ({ level, method, url, refused, noRoute }) => {
      await setLevel(t, ops, level);
      const requestId = `edge-${++counter}`;
      const response = await t.request({
        method,
        url,
        token: player.token,
        payload: method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? undefined : {},
        headers: { 'x-request-id': requestId },
      });
      if (refused) {
        expectPanicRefusal(response, level, REASONS[level], requestId);
      } else {
        expect(response.headers['x-request-id']).toBe(requestId);
        if (noRoute) expect(response.json()).toEqual({ error: 'not_found' });
        expect(response.statusCode).not.toBe(503);
        if (method !== 'HEAD') expect(response.json().error).not.toBe('panic_mode');
      }
    });
  });

  describe('503 comes before 401', () => {
    it.each([
      { level: 'lockdown' as const, method: 'PATCH' as const, url: '/v1/me', authorization: undefined },
      { level: 'lockdown' as const, method: 'PATCH' as const, url: '/v1/me', authorization: 'Bearer not-a-token' },
      {
        level: 'lockdown' as const,
        method: 'POST' as const,
        url: '/v1/public/waitlist',
        authorization: 'Bearer not-a-token',
      },
      { level: 'degraded' as const, method: 'POST' as const, url: '/v1/me/sessions', authorization: undefined },
      {
        level: 'degraded' as const,
        method: 'POST' as const,
        url: '/v1/me/billing/checkout-session',
        authorization: 'Basic abc',
      },
    ])(
      '$level: $method $url with authorization $authorization → 503',
      async ({ level, method, url, authorization }) => {
        await setLevel(t, ops, level);
        const requestId = `no-token-${++counter}`;
        const headers: Record<string, string> = { 'x-request-id': requestId };
        if (authorization) headers.authorization = authorization;
        const response = await t.request({ method, url, payload: {}, headers });
        expectPanicRefusal(response, level, REASONS[level], requestId);
      },
    );

    it('an allowed request still meets authentication after the gate (GET /v1/me at lockdown without a token → 401)', async () => {
      await setLevel(t, ops, 'lockdown');
      const response = await t.request({ method: 'GET', url: '/v1/me' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'missing_token' });
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('staff routes at lockdown keep their own guard: 401 without a token, 403 without the permission', async () => {
      await setLevel(t, ops, 'lockdown');
      const anonymous = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        payload: { key: 'never-made', name: 'Never' },
      });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ error: 'missing_token' });
      const denied = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: player.token,
        payload: { key: 'never-made', name: 'Never' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({ error: 'forbidden', details: { perm: 'roles.write' } });
      expect(
        await t.db.selectFrom('roles').select('id').where('key', '=', 'never-made').executeTakeFirst(),
      ).toBeUndefined();
    });
  });

  it('a panic reason of null (level set outside the API) is shown as null in the 503', async () => {
    await t.db
      .updateTable('ops_panic_state')
      .set({ level: 'lockdown', reason: null, set_by: null, set_at: new Date(), auto: true })
      .execute();
    await t.kernel.panic.refresh();
    const response = await t.request({
      method: 'POST',
      url: '/v1/public/waitlist',
      payload: {},
      headers: { 'x-request-id': 'null-reason' },
    });
    expectPanicRefusal(response, 'lockdown', null, 'null-reason');
    await setLevel(t, ops, 'off');
  });
});

describe('setOpsPanicMode: POST and GET /v1/admin/ops/panic', () => {
  let t: TestApp;
  let operator: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.db, ['ops.panic']);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function panicRow() {
    return t.db.selectFrom('ops_panic_state').selectAll().executeTakeFirstOrThrow();
  }
  async function auditRows() {
    return t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'ops.panic.set')
      .orderBy('created_at')
      .execute();
  }
  async function outboxRows(requestId?: string) {
    let query = t.db.selectFrom('event_outbox').selectAll().orderBy('id');
    if (requestId !== undefined) query = query.where('request_id', '=', requestId);
    return query.execute();
  }

  it('starts off: GET shows the empty state', async () => {
    const reader = await createUser(t.db, ['ops.read']);
    const response = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: reader.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ level: 'off', reason: null, set_by: null, set_at: null, auto: false });
  });

  it('sets a level: 200 body, stored row, GET agrees, audit row, alert and dashboard event, enforced at once', async () => {
    const reason = 'Payment provider incident';
    const startedAt = Date.now();
    const response = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'degraded', reason },
      headers: { 'user-agent': 'ops-console/2.0' },
      remoteAddress: '203.0.113.9',
    });
    expect(response.statusCode, response.body).toBe(200);
    const requestId = response.headers['x-request-id'] as string;
    const body = response.json();
    expect(body).toEqual({
      panic: { level: 'degraded', reason, set_by: operator.id, set_at: expect.any(String), auto: false },
    });
    const setAt = Date.parse(body.panic.set_at);
    expect(setAt).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(setAt).toBeLessThanOrEqual(Date.now() + 1_000);

    const row = await panicRow();
    expect(row).toEqual({
      singleton: true,
      level: 'degraded',
      reason,
      set_by: operator.id,
      set_at: new Date(body.panic.set_at),
      auto: false,
    });

    // GET (ops.read or ops.panic) returns the same state.
    for (const perms of [['ops.read'], ['ops.panic'], ['ops.*']]) {
      const reader = await createUser(t.db, perms);
      const got = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: reader.token });
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(body.panic);
    }

    const audits = await auditRows();
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      actor_id: operator.id,
      action: 'ops.panic.set',
      target_type: 'panic',
      target_id: 'global',
      request_id: requestId,
      ip: '203.0.113.9',
      user_agent: 'ops-console/2.0',
      reason,
      summary: { before: { level: 'off', reason: null }, after: { level: 'degraded', reason } },
    });

    const payload = { level: 'degraded', previous_level: 'off', reason, set_by: operator.id, auto: false };
    const outbox = await outboxRows(requestId);
    expect(
      outbox.map((e) => ({
        kind: e.kind,
        name: e.name,
        payload: e.payload,
        actor_id: e.actor_id,
        request_id: e.request_id,
      })),
    ).toEqual([
      { kind: 'alert', name: 'panic_mode_changed', payload, actor_id: operator.id, request_id: requestId },
      { kind: 'dashboard', name: 'ops.panic_changed', payload, actor_id: operator.id, request_id: requestId },
    ]);
    await eventually(() => {
      expect(
        t.events
          .filter((e) => e.requestId === requestId)
          .map((e) => ({ kind: e.kind, name: e.name, payload: e.payload, actorId: e.actorId })),
      ).toEqual([
        { kind: 'alert', name: 'panic_mode_changed', payload, actorId: operator.id },
        { kind: 'dashboard', name: 'ops.panic_changed', payload, actorId: operator.id },
      ]);
    });

    // This instance enforces the new level on the very next request.
    const player = await createUser(t.db);
    const refused = await t.request({
      method: 'POST',
      url: '/v1/me/sessions',
      token: player.token,
      payload: {},
      headers: { 'x-request-id': 'after-set' },
    });
    expectPanicRefusal(refused, 'degraded', reason, 'after-set');
  });

  it('a second change records the previous level; the reason is trimmed; lockdown never blocks the panic route itself', async () => {
    await setLevel(t, operator, 'degraded', 'First incident');
    const response = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'lockdown', reason: '   Failover   ' },
    });
    const requestId = response.headers['x-request-id'] as string;
    expect(response.statusCode).toBe(200);
    expect(response.json().panic).toMatchObject({
      level: 'lockdown',
      reason: 'Failover',
      set_by: operator.id,
      auto: false,
    });
    const audit = (await auditRows()).at(-1)!;
    expect(audit).toMatchObject({
      request_id: requestId,
      reason: 'Failover',
      summary: {
        before: { level: 'degraded', reason: 'First incident' },
        after: { level: 'lockdown', reason: 'Failover' },
      },
    });
    expect((await outboxRows(requestId)).map((e) => e.payload)).toEqual([
      { level: 'lockdown', previous_level: 'degraded', reason: 'Failover', set_by: operator.id, auto: false },
      { level: 'lockdown', previous_level: 'degraded', reason: 'Failover', set_by: operator.id, auto: false },
    ]);

    // At lockdown the operator can still lift it.
    const lifted = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'off', reason: 'Resolved' },
    });
    expect(lifted.statusCode).toBe(200);
    expect(lifted.json().panic).toMatchObject({ level: 'off', reason: 'Resolved' });
    expect((await panicRow()).level).toBe('off');
    const player = await createUser(t.db);
    // Past the gate again: the route itself answers (here, the missing game_id).
    const passes = await t.request({ method: 'POST', url: '/v1/me/sessions', token: player.token, payload: {} });
    expect(passes.statusCode).toBe(400);
    expect(passes.json().error.name).toBe('SchemaError');
  });

  it('accepts reasons of exactly 3 and exactly 500 characters', async () => {
    for (const reason of ['abc', 'r'.repeat(500)]) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level: 'off', reason },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().panic.reason).toBe(reason);
      expect((await panicRow()).reason).toBe(reason);
    }
  });

  describe('refusals change nothing', () => {
    const tooShort = {
      code: 'too_small',
      minimum: 3,
      origin: 'string',
      inclusive: true,
      message: 'Too small: expected string to have >=3 characters',
      path: ['reason'],
    };
    const levelRefused = {
      code: 'invalid_value',
      values: ['off', 'degraded', 'lockdown'],
      message: 'Invalid option: expected one of "off"|"degraded"|"lockdown"',
      path: ['level'],
    };
    const reasonMissing = {
      code: 'invalid_type',
      expected: 'string',
      message: 'Invalid input: expected string, received undefined',
      path: ['reason'],
    };
    const invalid = [
      { name: 'reason of 2 characters', payload: { level: 'lockdown', reason: 'ab' }, issues: [tooShort] },
      {
        name: 'reason of 2 characters once trimmed',
        payload: { level: 'lockdown', reason: '  ab  ' },
        issues: [tooShort],
      },
      {
        name: 'reason of 501 characters',
        payload: { level: 'lockdown', reason: 'r'.repeat(501) },
        issues: [
          {
            code: 'too_big',
            maximum: 500,
            origin: 'string',
            inclusive: true,
            message: 'Too big: expected string to have <=500 characters',
            path: ['reason'],
          },
        ],
      },
      { name: 'unknown level', payload: { level: 'panic', reason: 'Some reason' }, issues: [levelRefused] },
      { name: 'missing level', payload: { reason: 'Some reason' }, issues: [levelRefused] },
      { name: 'missing reason', payload: { level: 'lockdown' }, issues: [reasonMissing] },
      { name: 'empty object', payload: {}, issues: [levelRefused, reasonMissing] },
      {
        name: 'unknown field',
        payload: { level: 'lockdown', reason: 'Some reason', auto: true },
        issues: [{ code: 'unrecognized_keys', keys: ['auto'], message: 'Unrecognized key: "auto"', path: [] }],
      },
    ];

    /** The level, the audit log and outbox, and the events this instance heard: a refusal moves none. */
    const panicState = async () => ({
      ...(await storedState(t.db, { ops_panic_state: ['singleton'] }, ['audit_log', 'event_outbox'])),
      'events heard': t.events.length,
    });

    it.each(invalid)('400 for $name', async ({ payload, issues }) => {
      const response = await expectRefusedUnchanged(
        panicState,
        () => t.request({ method: 'POST', url: '/v1/admin/ops/panic', token: operator.token, payload }),
        400,
        { success: false, error: { name: 'SchemaError', issues } },
      );
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    });

    it.each([
      {
        name: 'a player',
        perms: [] as string[],
        method: 'POST' as const,
        status: 403,
        body: { error: 'forbidden', details: { perm: 'ops.panic' } },
      },
      {
        name: 'a holder of ops.read only',
        perms: ['ops.read'],
        method: 'POST' as const,
        status: 403,
        body: { error: 'forbidden', details: { perm: 'ops.panic' } },
      },
      {
        name: 'a holder of roles.* only',
        perms: ['roles.*'],
        method: 'POST' as const,
        status: 403,
        body: { error: 'forbidden', details: { perm: 'ops.panic' } },
      },
      {
        name: 'a player reading',
        perms: [],
        method: 'GET' as const,
        status: 403,
        body: { error: 'forbidden', details: { perm: 'ops.read | ops.panic' } },
      },
      { name: 'no token', perms: null, method: 'POST' as const, status: 401, body: { error: 'missing_token' } },
    ])('$status for $name ($method)', async ({ perms, method, status, body }) => {
      const caller = perms === null ? undefined : await createUser(t.db, perms);
      const send = () =>
        t.request({
          method,
          url: '/v1/admin/ops/panic',
          token: caller?.token,
          payload: method === 'POST' ? { level: 'lockdown', reason: 'Not allowed to' } : undefined,
        });
      await expectRefusedUnchanged(panicState, send, status, body);
    });

    it('403 comes before validation: a caller without ops.panic sending a bad body gets 403', async () => {
      const player = await createUser(t.db);
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: player.token,
        payload: { level: 'nope' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: 'forbidden', details: { perm: 'ops.panic' } });
    });
  });
});

describe('two instances on one database', () => {
  let a: Awaited<ReturnType<typeof startTestApp>>;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ database: await a.testDatabase!.openAnother() });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a level set through instance A is enforced by instance B within a second, and lifted the same way', async () => {
    const operator = await createUser(a.db, ['ops.panic']);
    const player = await createUser(a.db);
    const meWrite = (requestId: string) =>
      b.request({
        method: 'PATCH',
        url: '/v1/me',
        token: player.token,
        payload: { display_name: 'x' },
        headers: { 'x-request-id': requestId },
      });

    expectPastTheGate(b, 'PATCH', '/v1/me', await meWrite('b-before'), 'b-before');

    await setLevel(a, operator, 'lockdown', 'Failover on A');
    await eventually(
      async () => expectPanicRefusal(await meWrite('b-locked'), 'lockdown', 'Failover on A', 'b-locked'),
      1_000,
    );
    // Instance B also hears the alert.
    await eventually(() => expect(b.events.map((e) => e.name)).toContain('panic_mode_changed'), 1_000);
    // Staff routes and /health stay open on B.
    const health = await b.request({ method: 'GET', url: '/health' });
    expect(health.json()).toEqual({ status: 'ok', database: 'ok' });

    await setLevel(a, operator, 'off', 'Failover done');
    await eventually(async () => expectPastTheGate(b, 'PATCH', '/v1/me', await meWrite('b-after'), 'b-after'), 1_000);
  });

  it('a slow read begun before a change never overwrites the level read after it', async () => {
    // A database handle whose first answer arrives late, like a safety poll stuck on a busy link:
    // held until the test lets it go, after its session is given back, so the newer read runs
    // meanwhile (on the embedded database too, whose one connection a held session would block).
    let answered!: () => void;
    const firstAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => {
      deliver = resolve;
    });
    let held = false;
    const slowDb = answersHeldBy(a.db, async () => {
      if (held) return;
      held = true;
      answered();
      await delivered;
    });
    const monitor = new PanicMonitor(slowDb, a.kernel.bus);
    const staleRead = monitor.refresh(); // reads 'off', answers once let go
    await firstAnswered;
    await a.db
      .updateTable('ops_panic_state')
      .set({ level: 'lockdown', reason: 'Changed meanwhile', set_by: null, set_at: new Date(), auto: true })
      .execute();
    expect((await monitor.refresh()).level).toBe('lockdown');
    deliver();
    await staleRead;
    expect(monitor.state).toMatchObject({ level: 'lockdown', reason: 'Changed meanwhile' });
    await a.db
      .updateTable('ops_panic_state')
      .set({ level: 'off', reason: null, set_by: null, set_at: null, auto: false })
      .execute();
  });
});
