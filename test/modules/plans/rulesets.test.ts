import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { storedState } from '../../helpers/stored-state.js';

/**
 * Plan rulesets: operation 8 (upsertPlanRuleset, upsert by key, 200 {id} stable across upserts)
 * and the list. Successes are checked in the table and the audit log; refusals are checked to
 * leave the table and the audit log untouched.
 */

const URL = '/v1/admin/plans/rulesets';
const USER_AGENT = 'plans-test/1.0';
type Db = TestApp['db'];

let counter = 0;
const uniqueKey = (prefix = 'rs') => `${prefix}-${++counter}-${randomUUID().slice(0, 6)}`;
const rulesetRow = (db: Db, key: string) =>
  db.selectFrom('plan_rulesets').selectAll().where('key', '=', key).executeTakeFirst();

/** What a refusal must leave as it was: the rulesets, and the audit log's size. */
const rulesetState = (db: Db) => storedState(db, { plan_rulesets: ['id'] });

describe('PUT /v1/admin/plans/rulesets (operation 8)', () => {
  let t: TestApp;
  let planner: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    planner = await createUser(t.db, ['plans.write']);
    reader = await createUser(t.db, ['plans.read']);
    outsider = await createUser(t.db, ['content.write', 'store.write']);
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (payload: unknown, user: TestUser | null = planner) =>
    t.request({
      method: 'PUT',
      url: URL,
      token: user?.token,
      headers: { 'user-agent': USER_AGENT },
      payload: payload as object,
    });

  function auditRow(requestId: string, targetId: string, summary: unknown) {
    return {
      id: expect.any(String),
      created_at: expect.any(Date),
      actor_id: planner.id,
      action: 'plans.ruleset.upsert',
      target_type: 'plan_ruleset',
      target_id: targetId,
      request_id: requestId,
      ip: '127.0.0.1',
      user_agent: USER_AGENT,
      reason: null,
      summary,
    };
  }

  it('creates a ruleset with the spec defaults, answers 200 {id}, and audits it', async () => {
    const key = uniqueKey();
    const response = await put({ key, name: 'Free' });
    expect(response.statusCode).toBe(200);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await rulesetRow(t.db, key)).toEqual({
      id,
      key,
      name: 'Free',
      description: null,
      limits: {},
      is_active: true,
      updated_by: planner.id,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(requestIdOf(response), id, {
        key,
        created: true,
        before: null,
        after: { name: 'Free', description: null, limits: {}, isActive: true },
      }),
    ]);
  });

  it('replaces the ruleset of an existing key, keeping its id, and audits the changed fields', async () => {
    const key = uniqueKey();
    const first = await put({ key, name: 'Pro', description: 'Paid', limits: { pool_id: 'eu-1', max_fps: 60 } });
    const created = (await rulesetRow(t.db, key))!;
    const second = await put({
      key,
      name: 'Pro',
      description: 'Paid',
      limits: { max_fps: 120, pool_id: 'eu-1' },
      isActive: false,
    });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await rulesetRow(t.db, key)).toEqual({
      ...created,
      limits: { pool_id: 'eu-1', max_fps: 120 },
      is_active: false,
      updated_at: expect.any(Date),
    });
    expect(await auditOf(t.db, requestIdOf(second))).toEqual([
      auditRow(requestIdOf(second), first.json().id, {
        key,
        created: false,
        before: { limits: { pool_id: 'eu-1', max_fps: 60 }, isActive: true },
        after: { limits: { pool_id: 'eu-1', max_fps: 120 }, isActive: false },
      }),
    ]);
  });

  it('replaces as a whole: omitted description, limits and isActive take their defaults', async () => {
    const key = uniqueKey();
    await put({ key, name: 'Team', description: 'For teams', limits: { max_fps: 30 }, isActive: false });
    const response = await put({ key, name: 'Team' });
    expect(response.statusCode).toBe(200);
    expect(await rulesetRow(t.db, key)).toMatchObject({ description: null, limits: {}, is_active: true });
  });

  it('writes and audits nothing when the same ruleset is sent again (limits in any key order)', async () => {
    const key = uniqueKey();
    const first = await put({ key, name: 'Same', limits: { a: 1, nested: { y: [1, { q: true }], x: null } } });
    const before = await rulesetRow(t.db, key);
    const again = await put({
      key,
      name: 'Same',
      limits: { nested: { x: null, y: [1, { q: true }] }, a: 1 },
      isActive: true,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await rulesetRow(t.db, key)).toEqual(before);
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
  });

  it('accepts every field at its upper bound', async () => {
    const key = `a${'b'.repeat(47)}`;
    const response = await put({ key, name: 'n'.repeat(100), description: 'd'.repeat(500) });
    expect(response.statusCode).toBe(200);
    expect(await rulesetRow(t.db, key)).toMatchObject({ name: 'n'.repeat(100), description: 'd'.repeat(500) });
  });

  it.each([
    {
      name: 'a 49-character key',
      body: { key: `a${'b'.repeat(48)}`, name: 'x' },
      issue: { path: ['key'], code: 'invalid_format' },
    },
    {
      name: 'a key with a dot',
      body: { key: 'pro.plus', name: 'x' },
      issue: { path: ['key'], code: 'invalid_format' },
    },
    {
      name: 'a key starting with a digit',
      body: { key: '1pro', name: 'x' },
      issue: { path: ['key'], code: 'invalid_format' },
    },
    { name: 'a key with a capital', body: { key: 'Pro', name: 'x' }, issue: { path: ['key'], code: 'invalid_format' } },
    { name: 'no key', body: { name: 'x' }, issue: { path: ['key'], code: 'invalid_type' } },
    { name: 'no name', body: { key: 'pro' }, issue: { path: ['name'], code: 'invalid_type' } },
    { name: 'an empty name', body: { key: 'pro', name: '' }, issue: { path: ['name'], code: 'too_small', minimum: 1 } },
    {
      name: 'a 101-character name',
      body: { key: 'pro', name: 'n'.repeat(101) },
      issue: { path: ['name'], code: 'too_big', maximum: 100 },
    },
    {
      name: 'a 501-character description',
      body: { key: 'pro', name: 'x', description: 'd'.repeat(501) },
      issue: { path: ['description'], code: 'too_big', maximum: 500 },
    },
    {
      name: 'limits that are an array',
      body: { key: 'pro', name: 'x', limits: [1] },
      issue: { path: ['limits'], code: 'invalid_type', expected: 'record' },
    },
    {
      name: 'limits that are a string',
      body: { key: 'pro', name: 'x', limits: 'fast' },
      issue: { path: ['limits'], code: 'invalid_type', expected: 'record' },
    },
    {
      name: 'a non-boolean isActive',
      body: { key: 'pro', name: 'x', isActive: 'yes' },
      issue: { path: ['isActive'], code: 'invalid_type' },
    },
    {
      name: 'snake_case is_active (the plans group is camelCase)',
      body: { key: 'pro', name: 'x', is_active: true },
      issue: { code: 'unrecognized_keys', keys: ['is_active'] },
    },
  ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
    await expectRefusedUnchanged(
      () => rulesetState(t.db),
      () => put(body),
      400,
      schemaError(issue),
    );
  });

  it('needs plans.write (401 without a token, 403 naming it otherwise)', async () => {
    await expectRefusedUnchanged(
      () => rulesetState(t.db),
      () => put({ key: 'denied', name: 'x' }, null),
      401,
      { error: 'missing_token' },
    );
    await expectRefusedUnchanged(
      () => rulesetState(t.db),
      () => put({ key: 'denied', name: 'x' }, outsider),
      403,
      {
        error: 'forbidden',
        details: { perm: 'plans.write' },
      },
    );
    await expectRefusedUnchanged(
      () => rulesetState(t.db),
      () => put({ key: 'denied', name: 'x' }, reader),
      403,
      {
        error: 'forbidden',
        details: { perm: 'plans.write' },
      },
    );
  });
});

describe('GET /v1/admin/plans/rulesets', () => {
  let t: TestApp;
  let reader: TestUser;
  let planner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    reader = await createUser(t.db, ['plans.read']);
    planner = await createUser(t.db, ['plans.write']);
    for (const body of [
      { key: 'pro', name: 'Pro', description: 'Paid', limits: { max_fps: 120 } },
      { key: 'free', name: 'Free' },
      { key: 'legacy', name: 'Legacy', isActive: false },
    ]) {
      expect((await t.request({ method: 'PUT', url: URL, token: planner.token, payload: body })).statusCode).toBe(200);
    }
    for (const [key, rank] of [
      ['basic', 0],
      ['plus', 1],
    ] as const) {
      const tier = { key, name: key, rank, rulesetKey: 'pro' };
      expect(
        (await t.request({ method: 'PUT', url: '/v1/admin/plans/tiers', token: planner.token, payload: tier }))
          .statusCode,
      ).toBe(204);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (query = '', user: TestUser | null = reader) =>
    t.request({ method: 'GET', url: `${URL}${query}`, token: user?.token });

  it('lists every ruleset by key, camelCase, with its tier count', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const pro = (await rulesetRow(t.db, 'pro'))!;
    expect(response.json().data.map((r: { key: string; tierCount: number }) => [r.key, r.tierCount])).toEqual([
      ['free', 0],
      ['legacy', 0],
      ['pro', 2],
    ]);
    expect(response.json().data[2]).toEqual({
      id: pro.id,
      key: 'pro',
      name: 'Pro',
      description: 'Paid',
      limits: { max_fps: 120 },
      isActive: true,
      tierCount: 2,
      updatedBy: planner.id,
      createdAt: pro.created_at.toISOString(),
      updatedAt: pro.updated_at.toISOString(),
    });
  });

  it.each([
    { query: '?isActive=false', keys: ['legacy'] },
    { query: '?isActive=true', keys: ['free', 'pro'] },
  ])('filters with $query', async ({ query, keys }) => {
    expect((await list(query)).json().data.map((r: { key: string }) => r.key)).toEqual(keys);
  });

  it('refuses a bad filter with 400 and callers without plans.read', async () => {
    const bad = await list('?isActive=maybe');
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({
      status: 400,
      body: schemaError({ path: ['isActive'] }),
    });
    const anonymous = await list('', null);
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    const writerOnly = await list('', planner);
    expect({ status: writerOnly.statusCode, body: writerOnly.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'plans.read' } },
    });
  });
});
