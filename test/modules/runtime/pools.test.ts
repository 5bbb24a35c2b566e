import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRuntimeUnavailable, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { closedPort } from '../../helpers/ports.js';

/**
 * Staff administration of runtime pools (list, read, create, update) through the real app and
 * its in-process runtime simulator. The runtime holds the pools; the audit rows are ours.
 */

type App = Awaited<ReturnType<typeof startTestApp>>;

const runtimeAudits = (t: App) =>
  t.db.selectFrom('audit_log').selectAll().where('action', 'like', 'runtime.%').orderBy('created_at').execute();

describe('runtime pool administration', () => {
  let t: App;
  let sim: RuntimeSimulator;
  let operator: TestUser;
  let reader: TestUser;
  let bystander: TestUser;
  let poolCount = 0;

  beforeAll(async () => {
    t = await startTestApp();
    sim = t.kernel.runtimeSimulator!;
    operator = await createUser(t.db, ['runtime.read', 'runtime.write']);
    reader = await createUser(t.db, ['runtime.read']);
    bystander = await createUser(t.db, ['store.write']);
  });
  afterEach(() => sim.failNextRequests(0));
  afterAll(async () => t.close());

  const nextPoolId = () => `pool-${String(++poolCount).padStart(3, '0')}`;
  const get = (user: TestUser | null, url: string) => t.request({ method: 'GET', url, token: user?.token });
  const create = (user: TestUser | null, payload: unknown) =>
    t.request({ method: 'POST', url: '/v1/admin/runtime/pools', token: user?.token, payload: payload as object });
  const patch = (user: TestUser | null, id: string, payload: unknown) =>
    t.request({
      method: 'PATCH',
      url: `/v1/admin/runtime/pools/${id}`,
      token: user?.token,
      payload: payload as object,
    });

  describe('GET /v1/admin/runtime/pools and /pools/{id}', () => {
    it('lists every pool sorted by id with its node ids, as the runtime holds them', async () => {
      sim.addPool({ id: 'zeta', name: 'Zeta', description: 'last' });
      sim.addNode({ id: 'zeta-node', pool_id: 'zeta' });
      const res = await get(reader, '/v1/admin/runtime/pools');
      expect(res.statusCode).toBe(200);
      const data = res.json().data as Array<{ id: string }>;
      const ids = data.map((pool) => pool.id);
      expect(ids[0]).toBe('default');
      expect(ids).toContain('zeta');
      expect(ids).toEqual([...ids].sort());
      expect(data).toEqual(ids.map((id) => sim.pool(id)));
      expect(data.find((pool) => pool.id === 'default')).toEqual({
        id: 'default',
        name: 'Default pool',
        description: null,
        node_ids: ['node-1', 'node-2'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(data.find((pool) => pool.id === 'zeta')).toMatchObject({
        name: 'Zeta',
        description: 'last',
        node_ids: ['zeta-node'],
      });
    });

    it('answers one pool', async () => {
      const res = await get(reader, '/v1/admin/runtime/pools/default');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(sim.pool('default'));
    });

    it("answers 404 not_found with the runtime's code for an unknown pool", async () => {
      const res = await get(reader, '/v1/admin/runtime/pools/no-such-pool');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'not_found',
        details: { runtime_code: 'pool_not_found', message: 'pool no-such-pool does not exist' },
      });
    });

    it.each([
      ['GET /pools without a token', null, '/v1/admin/runtime/pools', 401, { error: 'missing_token' }],
      [
        'GET /pools without runtime.read',
        () => bystander,
        '/v1/admin/runtime/pools',
        403,
        { error: 'forbidden', details: { perm: 'runtime.read' } },
      ],
      [
        'GET /pools/{id} without runtime.read',
        () => bystander,
        '/v1/admin/runtime/pools/default',
        403,
        { error: 'forbidden', details: { perm: 'runtime.read' } },
      ],
    ])('refuses %s', async (_name, who, url, status, body) => {
      const res = await get(who?.() ?? null, url);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
    });

    it.each(['/v1/admin/runtime/pools', '/v1/admin/runtime/pools/default'])(
      'GET %s answers 503 unavailable with Retry-After while the runtime keeps failing',
      async (url) => {
        sim.failNextRequests(50);
        expectRuntimeUnavailable(await get(reader, url));
      },
    );
  });

  describe('POST /v1/admin/runtime/pools', () => {
    it('creates a pool, answers 201 with it and audits runtime.pool_create', async () => {
      const id = nextPoolId();
      const res = await create(operator, { id, name: '  EU GPU  ', description: 'Nodes with GPUs in Europe' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        id,
        name: 'EU GPU',
        description: 'Nodes with GPUs in Europe',
        node_ids: [],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(sim.pool(id)).toEqual(res.json());
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.pool_create',
          target_type: 'runtime_pool',
          target_id: id,
          reason: null,
          summary: { after: { name: 'EU GPU', description: 'Nodes with GPUs in Europe' } },
        }),
      ]);
    });

    it('creates a pool without a description (null), with the longest id and name', async () => {
      const id = `a${'-'.repeat(61)}z`;
      const res = await create(operator, { id, name: 'n'.repeat(100) });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ id, name: 'n'.repeat(100), description: null });
      expect(sim.pool(id)).toMatchObject({ description: null });
    });

    it('answers 409 conflict when the pool exists, changing and auditing nothing', async () => {
      const before = sim.pool('default');
      const res = await create(operator, { id: 'default', name: 'Another' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'conflict',
        details: { runtime_code: 'pool_exists', message: 'pool default already exists' },
      });
      expect(sim.pool('default')).toEqual(before);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['an id with capitals', { id: 'EU', name: 'x' }, { path: ['id'], code: 'invalid_format' }],
      ['an id starting with "-"', { id: '-eu', name: 'x' }, { path: ['id'], code: 'invalid_format' }],
      ['an id of 64 characters', { id: 'a'.repeat(64), name: 'x' }, { path: ['id'], code: 'invalid_format' }],
      ['no id', { name: 'x' }, { path: ['id'], code: 'invalid_type' }],
      ['an empty name', { id: 'fresh', name: '' }, { path: ['name'], code: 'too_small' }],
      ['a blank name', { id: 'fresh', name: '   ' }, { path: ['name'], code: 'too_small' }],
      [
        'a name of 101 characters',
        { id: 'fresh', name: 'n'.repeat(101) },
        { path: ['name'], code: 'too_big', maximum: 100 },
      ],
      [
        'a description of 501 characters',
        { id: 'fresh', name: 'x', description: 'd'.repeat(501) },
        { path: ['description'], code: 'too_big', maximum: 500 },
      ],
      ['an unknown key', { id: 'fresh', name: 'x', node_ids: [] }, { code: 'unrecognized_keys', keys: ['node_ids'] }],
    ])('answers 400 for %s, creating nothing', async (_name, payload, issue) => {
      const res = await create(operator, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError(issue));
      expect(sim.pool('fresh')).toBeUndefined();
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['401 without a token', null, { error: 'missing_token' }, 401],
      [
        '403 for a runtime.read-only caller',
        () => reader,
        { error: 'forbidden', details: { perm: 'runtime.write' } },
        403,
      ],
    ])('answers %s, creating nothing', async (_name, who, body, status) => {
      const id = nextPoolId();
      const res = await create(who?.() ?? null, { id, name: 'x' });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(sim.pool(id)).toBeUndefined();
    });

    it('answers 503 unavailable with Retry-After while the runtime keeps failing, creating and auditing nothing', async () => {
      const id = nextPoolId();
      sim.failNextRequests(50);
      const res = await create(operator, { id, name: 'x' });
      expectRuntimeUnavailable(res);
      expect(sim.pool(id)).toBeUndefined();
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });
  });

  describe('PATCH /v1/admin/runtime/pools/{id}', () => {
    const createdPool = async (description: string | null = 'First description') => {
      const res = await create(operator, { id: nextPoolId(), name: 'Original', description });
      expect(res.statusCode).toBe(201);
      return res.json() as { id: string; name: string; description: string | null; updated_at: string };
    };

    it('renames a pool, answering it and auditing only the name', async () => {
      const pool = await createdPool();
      const res = await patch(operator, pool.id, { name: 'Renamed', description: 'First description' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...pool, name: 'Renamed', updated_at: expect.any(String) });
      expect(sim.pool(pool.id)).toEqual(res.json());
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.pool_update',
          target_type: 'runtime_pool',
          target_id: pool.id,
          summary: { before: { name: 'Original' }, after: { name: 'Renamed' } },
        }),
      ]);
    });

    it('clears the description with null and changes both fields at once', async () => {
      const pool = await createdPool();
      const cleared = await patch(operator, pool.id, { description: null });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json()).toMatchObject({ name: 'Original', description: null });
      expect(sim.pool(pool.id)!.description).toBeNull();
      expect((await auditOf(t.db, requestIdOf(cleared)))[0]!.summary).toEqual({
        before: { description: 'First description' },
        after: { description: null },
      });

      const both = await patch(operator, pool.id, { name: 'Both', description: 'Second' });
      expect(both.json()).toMatchObject({ name: 'Both', description: 'Second' });
      expect((await auditOf(t.db, requestIdOf(both)))[0]!.summary).toEqual({
        before: { name: 'Original', description: null },
        after: { name: 'Both', description: 'Second' },
      });
    });

    it('answers the pool unchanged for a body that changes nothing, auditing nothing', async () => {
      const pool = await createdPool();
      const res = await patch(operator, pool.id, { name: 'Original', description: 'First description' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(pool);
      expect(sim.pool(pool.id)).toEqual(pool);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it('answers 404 not_found for an unknown pool, auditing nothing', async () => {
      const res = await patch(operator, 'no-such-pool', { name: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'not_found',
        details: { runtime_code: 'pool_not_found', message: 'pool no-such-pool does not exist' },
      });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['an empty body', {}, { code: 'custom', message: 'provide at least one of name, description' }],
      ['an empty name', { name: '' }, { path: ['name'], code: 'too_small' }],
      ['a null name', { name: null }, { path: ['name'], code: 'invalid_type' }],
      ['a description of 501 characters', { description: 'd'.repeat(501) }, { path: ['description'], code: 'too_big' }],
      ['a node_ids key', { name: 'x', node_ids: [] }, { code: 'unrecognized_keys', keys: ['node_ids'] }],
    ])('answers 400 for %s, changing nothing', async (_name, payload, issue) => {
      const pool = await createdPool();
      const res = await patch(operator, pool.id, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError(issue));
      expect(sim.pool(pool.id)).toEqual(pool);
    });

    it('answers 403 to a runtime.read-only caller and 401 without a token, changing nothing', async () => {
      const pool = await createdPool();
      const forbidden = await patch(reader, pool.id, { name: 'x' });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual({ error: 'forbidden', details: { perm: 'runtime.write' } });
      const anonymous = await patch(null, pool.id, { name: 'x' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ error: 'missing_token' });
      expect(sim.pool(pool.id)).toEqual(pool);
    });

    it('answers 503 unavailable with Retry-After while the runtime keeps failing, changing and auditing nothing', async () => {
      const pool = await createdPool();
      const auditsBefore = await runtimeAudits(t);
      sim.failNextRequests(50);
      const res = await patch(operator, pool.id, { name: 'x' });
      expectRuntimeUnavailable(res);
      sim.failNextRequests(0);
      expect(sim.pool(pool.id)).toEqual(pool);
      expect(await runtimeAudits(t)).toEqual(auditsBefore);
    });
  });
});

describe('runtime pool administration with the runtime unreachable', () => {
  let down: App;
  let operator: TestUser;

  beforeAll(async () => {
    down = await startTestApp({ config: { runtimeUrl: `http://127.0.0.1:${await closedPort()}`, runtimeApiKey: 'k' } });
    operator = await createUser(down.db, ['runtime.read', 'runtime.write']);
  });
  afterAll(async () => down.close());

  it.each([
    ['GET', '/v1/admin/runtime/pools', undefined],
    ['GET', '/v1/admin/runtime/pools/default', undefined],
    ['POST', '/v1/admin/runtime/pools', { id: 'new-pool', name: 'New' }],
    ['PATCH', '/v1/admin/runtime/pools/default', { name: 'New' }],
  ] as const)('%s %s answers 503 unavailable with Retry-After, auditing nothing', async (method, url, payload) => {
    const res = await down.request({ method, url, token: operator.token, ...(payload ? { payload } : {}) });
    expectRuntimeUnavailable(res);
    expect(await auditOf(down.db, requestIdOf(res))).toEqual([]);
  });
});
