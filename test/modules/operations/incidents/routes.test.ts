import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';
import {
  probe,
  resetIncidents,
  runtimeRule,
  seconds,
  simulatorOf,
  useRules,
  type App,
  type TestRule,
} from './fixtures.js';

/**
 * GET/PUT /v1/admin/ops/incident-rules and GET /v1/admin/ops/incidents: every documented answer
 * (401, 403 with details.perm, 400 SchemaError, 200), with what is stored, audited and emitted.
 */

let t: App;
let operator: TestUser;
let reader: TestUser;
let player: TestUser;

const SEEDED = [
  {
    key: 'database-failing',
    signal: 'database_errors',
    threshold: 0.5,
    window_seconds: 60,
    min_requests: 5,
    level: 'lockdown',
    auto_clear: true,
    hold_seconds: 120,
    cooldown_seconds: 300,
    enabled: true,
  },
  {
    key: 'database-slow',
    signal: 'database_latency',
    threshold: 2000,
    window_seconds: 60,
    min_requests: 5,
    level: 'degraded',
    auto_clear: true,
    hold_seconds: 120,
    cooldown_seconds: 300,
    enabled: true,
  },
  {
    key: 'mail-failing',
    signal: 'mail',
    threshold: 0.5,
    window_seconds: 300,
    min_requests: 20,
    level: 'degraded',
    auto_clear: true,
    hold_seconds: 300,
    cooldown_seconds: 600,
    enabled: false,
  },
  {
    key: 'payments-failing',
    signal: 'payments',
    threshold: 0.5,
    window_seconds: 300,
    min_requests: 5,
    level: 'degraded',
    auto_clear: true,
    hold_seconds: 300,
    cooldown_seconds: 600,
    enabled: true,
  },
  {
    key: 'runtime-failing',
    signal: 'runtime',
    threshold: 0.5,
    window_seconds: 60,
    min_requests: 5,
    level: 'degraded',
    auto_clear: true,
    hold_seconds: 120,
    cooldown_seconds: 300,
    enabled: true,
  },
  {
    key: 'server-errors',
    signal: 'http_5xx',
    threshold: 0.25,
    window_seconds: 120,
    min_requests: 50,
    level: 'degraded',
    auto_clear: true,
    hold_seconds: 300,
    cooldown_seconds: 600,
    enabled: true,
  },
];
const FRESH_STATE = {
  holding: false,
  breached_since: null,
  healthy_since: null,
  last_change_at: null,
  silenced_until: null,
  last_evaluated_at: null,
  last_value: null,
  last_total: null,
};

beforeAll(async () => {
  t = await startTestApp();
  operator = await createUser(t.db, ['ops.panic']);
  reader = await createUser(t.db, ['ops.read']);
  player = await createUser(t.db);
});
afterAll(async () => t.close());

const getRules = (token?: string) => t.request({ method: 'GET', url: '/v1/admin/ops/incident-rules', token });
const putRules = (payload: unknown, token?: string) =>
  t.request({ method: 'PUT', url: '/v1/admin/ops/incident-rules', token, payload: payload as Record<string, unknown> });
const getIncidents = (query: string, token?: string) =>
  t.request({ method: 'GET', url: `/v1/admin/ops/incidents${query}`, token });

describe('GET /v1/admin/ops/incident-rules', () => {
  it('ships the seeded defaults, each with its (empty) monitor state', async () => {
    const response = await getRules(operator.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      rules: SEEDED.map((rule) => ({ ...rule, updated_at: expect.any(String), updated_by: null, state: FRESH_STATE })),
    });
  });

  it('401 missing_token; 403 forbidden naming ops.panic for a reader and a player', async () => {
    const anonymous = await getRules();
    expect([anonymous.statusCode, anonymous.json()]).toEqual([401, { error: 'missing_token' }]);
    for (const user of [reader, player]) {
      const denied = await getRules(user.token);
      expect([denied.statusCode, denied.json()]).toEqual([403, { error: 'forbidden', details: { perm: 'ops.panic' } }]);
    }
  });
});

describe('PUT /v1/admin/ops/incident-rules', () => {
  beforeEach(async () => resetIncidents(t));

  it('replaces the list: stored, audited with before and after, a dashboard event', async () => {
    await useRules(t, operator, SEEDED as TestRule[]);
    await eventually(() => expect(t.events).toHaveLength(1));
    t.events.length = 0;
    const rules = [
      runtimeRule({ key: 'runtime-tight', min_requests: 2 }),
      { ...SEEDED[0]!, threshold: 0.3 } as TestRule,
    ];
    const response = await putRules({ rules }, operator.token);
    expect(response.statusCode, response.body).toBe(200);
    const expected = [rules[1]!, { ...rules[0]!, enabled: true }].map((rule) => ({
      ...rule,
      updated_at: expect.any(String),
      updated_by: operator.id,
      state: FRESH_STATE,
    }));
    expect(response.json()).toEqual({ rules: expected });
    expect((await getRules(operator.token)).json()).toEqual({ rules: expected });
    expect(
      await t.db
        .selectFrom('incident_rules')
        .select(['key', 'threshold', 'min_requests', 'updated_by'])
        .orderBy('key')
        .execute(),
    ).toEqual([
      { key: 'database-failing', threshold: 0.3, min_requests: 5, updated_by: operator.id },
      { key: 'runtime-tight', threshold: 0.5, min_requests: 2, updated_by: operator.id },
    ]);
    const [audit, ...more] = await auditOf(t.db, requestIdOf(response));
    expect(more).toEqual([]);
    expect(audit).toMatchObject({
      actor_id: operator.id,
      action: 'ops.incident_rules.update',
      target_type: 'incident_rules',
      target_id: 'global',
    });
    const summary = audit!.summary as {
      before: Array<{ key: string }>;
      after: Array<{ key: string; threshold: number }>;
    };
    expect(summary.before.map((rule) => rule.key)).toEqual(SEEDED.map((rule) => rule.key));
    expect(summary.after.map((rule) => [rule.key, rule.threshold])).toEqual([
      ['database-failing', 0.3],
      ['runtime-tight', 0.5],
    ]);
    await eventually(() =>
      expect(t.events.map((event) => [event.kind, event.name, event.payload, event.actorId])).toEqual([
        ['dashboard', 'ops.incident_rules_updated', { keys: ['runtime-tight', 'database-failing'] }, operator.id],
      ]),
    );
  });

  it("an empty list turns monitoring off; a kept rule keeps the monitor's state (it goes on holding its level)", async () => {
    await useRules(t, operator, [runtimeRule({ min_requests: 1 })]);
    simulatorOf(t).failNextRequests(1);
    await probe(t);
    const T0 = new Date();
    expect((await t.kernel.incidents.evaluate(T0)).changed).toMatchObject({ level: 'degraded' });
    const edited = await putRules({ rules: [runtimeRule({ min_requests: 1, hold_seconds: 10 })] }, operator.token);
    expect(edited.json().rules[0]).toMatchObject({
      hold_seconds: 10,
      state: { holding: true, last_change_at: T0.toISOString(), breached_since: T0.toISOString() },
    });
    const emptied = await putRules({ rules: [] }, operator.token);
    expect(emptied.json()).toEqual({ rules: [] });
    expect(await t.db.selectFrom('incident_rules').select('key').execute()).toEqual([]);
    // The rule that held the level is gone: the level stays until a person changes it.
    await probe(t, 3);
    expect((await t.kernel.incidents.evaluate(seconds(T0, 600))).changed).toBeNull();
    expect(t.kernel.panic.state).toMatchObject({ level: 'degraded', auto: true });
  });

  it('401 missing_token; 403 forbidden naming ops.panic; nothing changes', async () => {
    await useRules(t, operator, [runtimeRule()]);
    const anonymous = await putRules({ rules: [] });
    expect([anonymous.statusCode, anonymous.json()]).toEqual([401, { error: 'missing_token' }]);
    const denied = await putRules({ rules: [] }, reader.token);
    expect([denied.statusCode, denied.json()]).toEqual([403, { error: 'forbidden', details: { perm: 'ops.panic' } }]);
    expect(await t.db.selectFrom('incident_rules').select('key').execute()).toEqual([{ key: 'runtime-test' }]);
  });

  const invalid: Array<{ name: string; body: unknown; path: Array<string | number>; code: string }> = [
    { name: 'no rules field', body: {}, path: ['rules'], code: 'invalid_type' },
    {
      name: 'a ratio threshold above 1',
      body: { rules: [runtimeRule({ threshold: 1.5 })] },
      path: ['rules', 0, 'threshold'],
      code: 'custom',
    },
    {
      name: 'a ratio threshold of 0',
      body: { rules: [runtimeRule({ threshold: 0 })] },
      path: ['rules', 0, 'threshold'],
      code: 'custom',
    },
    {
      name: 'a latency threshold under 1 ms',
      body: { rules: [runtimeRule({ signal: 'database_latency', threshold: 0.5 })] },
      path: ['rules', 0, 'threshold'],
      code: 'custom',
    },
    {
      name: 'an unknown signal',
      body: { rules: [{ ...runtimeRule(), signal: 'cpu' }] },
      path: ['rules', 0, 'signal'],
      code: 'invalid_value',
    },
    {
      name: 'the level off',
      body: { rules: [{ ...runtimeRule(), level: 'off' }] },
      path: ['rules', 0, 'level'],
      code: 'invalid_value',
    },
    {
      name: 'a window under 5 s',
      body: { rules: [runtimeRule({ window_seconds: 4 })] },
      path: ['rules', 0, 'window_seconds'],
      code: 'too_small',
    },
    { name: 'a key twice', body: { rules: [runtimeRule(), runtimeRule()] }, path: ['rules', 1, 'key'], code: 'custom' },
    {
      name: 'a bad key',
      body: { rules: [runtimeRule({ key: 'Runtime' })] },
      path: ['rules', 0, 'key'],
      code: 'invalid_format',
    },
    {
      name: 'an unknown field',
      body: { rules: [{ ...runtimeRule(), severity: 'high' }] },
      path: ['rules', 0],
      code: 'unrecognized_keys',
    },
  ];
  for (const { name, body, path, code } of invalid) {
    it(`400 SchemaError: ${name}; nothing changes`, async () => {
      await useRules(t, operator, [runtimeRule({ key: 'kept' })]);
      const response = await putRules(body, operator.token);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ code, path })] },
      });
      expect(await t.db.selectFrom('incident_rules').select('key').execute()).toEqual([{ key: 'kept' }]);
    });
  }
});

describe('GET /v1/admin/ops/incidents', () => {
  beforeEach(async () => resetIncidents(t));

  it('lists manual and automatic changes newest first, with the signals behind the automatic ones', async () => {
    const manual = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'lockdown', reason: 'Manual drill' },
    });
    expect(manual.statusCode).toBe(200);
    await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'off', reason: 'Drill over' },
    });
    await useRules(t, operator, [runtimeRule({ min_requests: 1 })]);
    simulatorOf(t).failNextRequests(1);
    await probe(t);
    const later = new Date(Date.now() + 60_000);
    expect((await t.kernel.incidents.evaluate(later)).changed).toMatchObject({ level: 'degraded' });

    for (const user of [reader, operator]) {
      const response = await getIncidents('', user.token);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.meta).toEqual({ page: 1, per_page: 25, total: 3 });
      expect(body.data).toEqual([
        {
          id: expect.any(String),
          created_at: later.toISOString(),
          level: 'degraded',
          previous_level: 'off',
          auto: true,
          reason: 'Incident rule runtime-test: runtime failure ratio 1.00 (1 of 1) over 30 s, at or above 0.5',
          set_by: 'incident-monitor',
          rule_key: 'runtime-test',
          measurement: {
            signal: 'runtime',
            value: 1,
            threshold: 0.5,
            total: 1,
            failures: 1,
            window_seconds: 30,
            min_requests: 1,
          },
          signals: expect.objectContaining({
            runtime: { value: 1, total: 1, failures: 1 },
            database_errors: { value: 0, total: 1, failures: 0 },
          }),
        },
        {
          id: expect.any(String),
          created_at: expect.any(String),
          level: 'off',
          previous_level: 'lockdown',
          auto: false,
          reason: 'Drill over',
          set_by: operator.id,
          rule_key: null,
          measurement: null,
          signals: null,
        },
        {
          id: expect.any(String),
          created_at: manual.json().panic.set_at,
          level: 'lockdown',
          previous_level: 'off',
          auto: false,
          reason: 'Manual drill',
          set_by: operator.id,
          rule_key: null,
          measurement: null,
          signals: null,
        },
      ]);
    }
  });

  it('pages with `page` and `per_page`: the same total on every page; past the last, no rows; `sort` turns it round', async () => {
    for (const [level, reason] of [
      ['degraded', 'first'],
      ['lockdown', 'second'],
      ['off', 'third'],
    ] as const) {
      const set = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level, reason },
      });
      expect(set.statusCode).toBe(200);
    }
    const reasons = (body: { data: { reason: string }[] }) => body.data.map((change) => change.reason);

    const first = (await getIncidents('?per_page=2', reader.token)).json();
    const second = (await getIncidents('?per_page=2&page=2', reader.token)).json();
    expect([reasons(first), first.meta]).toEqual([['third', 'second'], { page: 1, per_page: 2, total: 3 }]);
    expect([reasons(second), second.meta]).toEqual([['first'], { page: 2, per_page: 2, total: 3 }]);
    expect((await getIncidents('?per_page=2&page=3', reader.token)).json()).toEqual({
      data: [],
      meta: { page: 3, per_page: 2, total: 3 },
    });
    const oldest = (await getIncidents('?sort=created_at:asc&per_page=2', reader.token)).json();
    expect(reasons(oldest)).toEqual(['first', 'second']);
  });

  it('401 missing_token; 403 forbidden naming either permission', async () => {
    const anonymous = await getIncidents('');
    expect([anonymous.statusCode, anonymous.json()]).toEqual([401, { error: 'missing_token' }]);
    const denied = await getIncidents('', player.token);
    expect([denied.statusCode, denied.json()]).toEqual([
      403,
      { error: 'forbidden', details: { perm: 'ops.read | ops.panic' } },
    ]);
  });

  for (const [query, path, code] of [
    ['?page=0', 'page', 'too_small'],
    ['?per_page=0', 'per_page', 'too_small'],
    ['?per_page=101', 'per_page', 'too_big'],
    ['?per_page=ten', 'per_page', 'invalid_type'],
    ['?sort=level:asc', 'sort', 'invalid_format'],
    ['?q=lockdown', 'q', 'invalid_type'],
    // The parameters this list took before it paged like the others: refused, not ignored.
    ['?limit=10', 'limit', 'invalid_type'],
    ['?offset=0', 'offset', 'invalid_type'],
  ] as const) {
    it(`400 SchemaError for ${query}`, async () => {
      const response = await getIncidents(query, reader.token);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ code, path: [path] })] },
      });
    });
  }

  it('names `page` and `per_page` when refusing `limit` and `offset`', async () => {
    const response = await getIncidents('?limit=10&offset=20', reader.token);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.issues).toEqual([
      expect.objectContaining({ path: ['limit'], message: 'this list pages with page and per_page: leave limit out' }),
      expect.objectContaining({
        path: ['offset'],
        message: 'this list pages with page and per_page: leave offset out',
      }),
    ]);
  });
});
