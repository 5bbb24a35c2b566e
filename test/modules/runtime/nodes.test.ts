import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import { captureLog } from '../../helpers/captured-log.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRuntimeUnavailable, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { closedPort } from '../../helpers/ports.js';

/**
 * Staff administration of runtime nodes: the list and read, operation 15 (pullRuntimeNodeImage),
 * drain and undrain, and the pool assignment, through the real app and its in-process runtime
 * simulator reached over loopback HTTP. The runtime is the store of record, so effects are read
 * back from the simulator; the audit rows from our database.
 */

type App = Awaited<ReturnType<typeof startTestApp>>;

/** Pulls never finish on their own here: a pull stays `pulling` until the test settles it. */
const PULL_NEVER_FINISHES_MS = 600_000;

const runtimeAudits = (t: App) =>
  t.db.selectFrom('audit_log').selectAll().where('action', 'like', 'runtime.%').orderBy('created_at').execute();

describe('runtime node administration', () => {
  let t: App;
  let sim: RuntimeSimulator;
  let operator: TestUser;
  let reader: TestUser;
  let bystander: TestUser;
  let nodeCount = 0;

  beforeAll(async () => {
    t = await startTestApp({ runtimeSimulator: { pullDelayMs: PULL_NEVER_FINISHES_MS } });
    sim = t.kernel.runtimeSimulator!;
    operator = await createUser(t.db, ['runtime.read', 'runtime.write']);
    reader = await createUser(t.db, ['runtime.read']);
    bystander = await createUser(t.db, ['store.read', 'store.write']);
  });
  afterEach(() => sim.failNextRequests(0));
  afterAll(async () => t.close());

  /** A fresh node of its own for each test (ids sort after the seeded `node-1`, `node-2`). */
  const freshNode = (options: { pool_id?: string | null; images?: string[] } = {}) =>
    sim.addNode({
      id: `test-node-${String(++nodeCount).padStart(3, '0')}`,
      pool_id: options.pool_id ?? 'default',
      slots: 2,
      region: 'eu-west',
      images: options.images ?? [],
    });

  const get = (user: TestUser | null, url: string) => t.request({ method: 'GET', url, token: user?.token });
  const pull = (user: TestUser | null, nodeId: string, payload: unknown) =>
    t.request({
      method: 'POST',
      url: `/v1/admin/runtime/nodes/${encodeURIComponent(nodeId)}/pull-image`,
      token: user?.token,
      payload: payload as object,
    });
  const post = (user: TestUser | null, url: string, payload?: unknown) =>
    t.request({
      method: 'POST',
      url,
      token: user?.token,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const assign = (user: TestUser | null, nodeId: string, payload: unknown) =>
    t.request({
      method: 'PUT',
      url: `/v1/admin/runtime/nodes/${nodeId}/pool`,
      token: user?.token,
      payload: payload as object,
    });

  describe('GET /v1/admin/runtime/nodes', () => {
    it('lists every node sorted by id, each as the runtime holds it', async () => {
      const node = freshNode({ images: ['games/base:latest'] });
      const res = await get(reader, '/v1/admin/runtime/nodes');
      expect(res.statusCode).toBe(200);
      const data = res.json().data as Array<{ id: string }>;
      const ids = data.map((entry) => entry.id);
      expect(ids.slice(0, 2)).toEqual(['node-1', 'node-2']);
      expect(ids).toContain(node.id);
      expect(ids).toEqual([...ids].sort());
      expect(data).toEqual(ids.map((id) => sim.node(id)));
      expect(data.find((entry) => entry.id === node.id)).toEqual({
        id: node.id,
        pool_id: 'default',
        status: 'ready',
        region: 'eu-west',
        capacity: { slots: 2, used: 0 },
        images: [{ image: 'games/base:latest', status: 'ready', error: null, updated_at: expect.any(String) }],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('filters by pool_id and status', async () => {
      sim.addPool({ id: 'filter-pool', name: 'Filter pool' });
      const ready = sim.addNode({ id: 'filter-a', pool_id: 'filter-pool' });
      const draining = sim.addNode({ id: 'filter-b', pool_id: 'filter-pool', status: 'draining' });
      const offline = sim.addNode({ id: 'filter-c', pool_id: 'filter-pool', status: 'offline' });
      const ids = async (query: string) =>
        (await get(reader, `/v1/admin/runtime/nodes${query}`)).json().data.map((node: { id: string }) => node.id);
      expect(await ids('?pool_id=filter-pool')).toEqual([ready.id, draining.id, offline.id]);
      expect(await ids('?pool_id=filter-pool&status=draining')).toEqual([draining.id]);
      expect(await ids('?status=offline')).toEqual([offline.id]);
      expect(await ids('?pool_id=no-such-pool')).toEqual([]);
    });

    it.each([
      ['an unknown status', '?status=broken', { path: ['status'], code: 'invalid_value' }],
      ['an empty pool_id', '?pool_id=', { path: ['pool_id'], code: 'too_small' }],
    ])('answers 400 for %s', async (_name, query, issue) => {
      const res = await get(reader, `/v1/admin/runtime/nodes${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError(issue));
    });

    it.each([
      ['no token', null, 401, { error: 'missing_token' }],
      [
        'a caller without runtime.read',
        () => bystander,
        403,
        { error: 'forbidden', details: { perm: 'runtime.read' } },
      ],
    ])('refuses %s', async (_name, who, status, body) => {
      const res = await get(who?.() ?? null, '/v1/admin/runtime/nodes');
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
    });

    it('answers 503 unavailable with Retry-After while the runtime keeps failing', async () => {
      sim.failNextRequests(50);
      expectRuntimeUnavailable(await get(reader, '/v1/admin/runtime/nodes'));
    });
  });

  describe('GET /v1/admin/runtime/nodes/{id}', () => {
    it('answers the node with its images and capacity', async () => {
      const node = freshNode({ images: ['games/base:latest', 'games/racer:2'] });
      const res = await get(reader, `/v1/admin/runtime/nodes/${node.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(sim.node(node.id));
      expect(res.json().images.map((image: { image: string }) => image.image)).toEqual([
        'games/base:latest',
        'games/racer:2',
      ]);
    });

    it("answers 404 not_found with the runtime's code for an unknown node, a 200-character id included", async () => {
      const id = 'n'.repeat(200);
      const res = await get(reader, `/v1/admin/runtime/nodes/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'not_found',
        details: { runtime_code: 'node_not_found', message: `node ${id} does not exist` },
      });
    });

    it('answers 400 for an id of 201 characters', async () => {
      const res = await get(reader, `/v1/admin/runtime/nodes/${'n'.repeat(201)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path: ['id'], code: 'too_big', maximum: 200 }));
    });

    it('answers 503 unavailable with Retry-After while the runtime keeps failing', async () => {
      sim.failNextRequests(50);
      expectRuntimeUnavailable(await get(reader, '/v1/admin/runtime/nodes/node-1'));
    });
  });

  describe('POST /v1/admin/runtime/nodes/{id}/pull-image (operation 15)', () => {
    it('starts the pull, answers { ok: true } and audits runtime.node_pull_image; the image turns ready once the pull settles', async () => {
      const node = freshNode({ images: ['games/base:latest'] });
      const res = await pull(operator, node.id, { image: 'registry.example.test:5000/games/racer:1.2' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.node_pull_image',
          target_type: 'runtime_node',
          target_id: node.id,
          reason: null,
          summary: { image: 'registry.example.test:5000/games/racer:1.2' },
        }),
      ]);
      // The runtime holds the pull: no event of ours, and the node shows it pulling.
      expect(
        await t.db.selectFrom('event_outbox').select('name').where('request_id', '=', requestIdOf(res)).execute(),
      ).toEqual([]);
      const pulling = (await get(reader, `/v1/admin/runtime/nodes/${node.id}`)).json();
      expect(pulling.images).toEqual([
        { image: 'games/base:latest', status: 'ready', error: null, updated_at: expect.any(String) },
        {
          image: 'registry.example.test:5000/games/racer:1.2',
          status: 'pulling',
          error: null,
          updated_at: expect.any(String),
        },
      ]);

      sim.settlePulls();
      const settled = (await get(reader, `/v1/admin/runtime/nodes/${node.id}`)).json();
      expect(settled.images).toEqual([
        { image: 'games/base:latest', status: 'ready', error: null, updated_at: expect.any(String) },
        {
          image: 'registry.example.test:5000/games/racer:1.2',
          status: 'ready',
          error: null,
          updated_at: expect.any(String),
        },
      ]);
    });

    it("accepts an image the runtime cannot find (accepted, audited), which then shows failed with the runtime's error", async () => {
      const node = freshNode();
      const res = await pull(operator, node.id, { image: 'games/does-not-exist:1' });
      expect(res.json()).toEqual({ ok: true });
      expect(await auditOf(t.db, requestIdOf(res))).toHaveLength(1);
      sim.settlePulls();
      const after = (await get(reader, `/v1/admin/runtime/nodes/${node.id}`)).json();
      expect(after.images).toEqual([
        {
          image: 'games/does-not-exist:1',
          status: 'failed',
          error: 'manifest for games/does-not-exist:1 not found: manifest unknown',
          updated_at: expect.any(String),
        },
      ]);
    });

    it('pulls an image the node already has again (a refresh), audited like any pull', async () => {
      const node = freshNode({ images: ['games/base:latest'] });
      const res = await pull(operator, node.id, { image: 'games/base:latest' });
      expect(res.json()).toEqual({ ok: true });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'runtime.node_pull_image',
          target_id: node.id,
          summary: { image: 'games/base:latest' },
        }),
      ]);
      expect(sim.node(node.id)!.images).toEqual([
        expect.objectContaining({ image: 'games/base:latest', status: 'pulling' }),
      ]);
      sim.settlePulls();
    });

    it('takes an image reference of exactly 500 characters to the runtime', async () => {
      const node = freshNode();
      const image = `games/${'a'.repeat(492)}:1`;
      expect(image).toHaveLength(500);
      const res = await pull(operator, node.id, { image });
      expect(res.statusCode).toBe(200);
      expect(sim.node(node.id)!.images.map((entry) => entry.image)).toEqual([image]);
      sim.settlePulls();
    });

    type Failure = {
      name: string;
      setup: () => Promise<{ nodeId: string; payload: unknown; user: TestUser | null }>;
      status: number;
      body: (nodeId: string) => unknown;
      retryAfter?: string;
    };
    const failures: Failure[] = [
      {
        name: '400: image empty',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: '' }, user: operator }),
        status: 400,
        body: () => schemaError({ path: ['image'], code: 'too_small', minimum: 1 }),
      },
      {
        name: '400: image of 501 characters',
        setup: async () => ({
          nodeId: freshNode().id,
          payload: { image: `games/${'a'.repeat(493)}:1` },
          user: operator,
        }),
        status: 400,
        body: () => schemaError({ path: ['image'], code: 'too_big', maximum: 500 }),
      },
      {
        name: '400: image missing',
        setup: async () => ({ nodeId: freshNode().id, payload: {}, user: operator }),
        status: 400,
        body: () => schemaError({ path: ['image'], code: 'invalid_type' }),
      },
      {
        name: '400: image not a string',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: 7 }, user: operator }),
        status: 400,
        body: () => schemaError({ path: ['image'], code: 'invalid_type' }),
      },
      {
        name: '400: an unknown key',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: 'games/a:1', force: true }, user: operator }),
        status: 400,
        body: () => schemaError({ code: 'unrecognized_keys', keys: ['force'] }),
      },
      {
        name: '400: id of 201 characters',
        setup: async () => ({ nodeId: 'n'.repeat(201), payload: { image: 'games/a:1' }, user: operator }),
        status: 400,
        body: () => schemaError({ path: ['id'], code: 'too_big', maximum: 200 }),
      },
      {
        name: '401: no token',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: 'games/a:1' }, user: null }),
        status: 401,
        body: () => ({ error: 'missing_token' }),
      },
      {
        name: '403: a runtime.read-only caller',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: 'games/a:1' }, user: reader }),
        status: 403,
        body: () => ({ error: 'forbidden', details: { perm: 'runtime.write' } }),
      },
      {
        name: '404: unknown node',
        setup: async () => ({ nodeId: 'no-such-node', payload: { image: 'games/a:1' }, user: operator }),
        status: 404,
        body: () => ({
          error: 'not_found',
          details: { runtime_code: 'node_not_found', message: 'node no-such-node does not exist' },
        }),
      },
      {
        name: '409: that image is already pulling on the node',
        setup: async () => {
          const nodeId = freshNode().id;
          expect((await pull(operator, nodeId, { image: 'games/slow:1' })).json()).toEqual({ ok: true });
          return { nodeId, payload: { image: 'games/slow:1' }, user: operator };
        },
        status: 409,
        body: (nodeId) => ({
          error: 'conflict',
          details: {
            runtime_code: 'pull_in_progress',
            message: `games/slow:1 is already being pulled onto node ${nodeId}`,
          },
        }),
      },
      {
        name: '409: the node is offline',
        setup: async () => {
          const nodeId = freshNode().id;
          sim.setNodeStatus(nodeId, 'offline');
          return { nodeId, payload: { image: 'games/a:1' }, user: operator };
        },
        status: 409,
        body: (nodeId) => ({
          error: 'conflict',
          details: { runtime_code: 'node_offline', message: `node ${nodeId} is offline` },
        }),
      },
      {
        name: '422: an image reference the runtime refuses, with its message',
        setup: async () => ({ nodeId: freshNode().id, payload: { image: 'Games/Racer:1' }, user: operator }),
        status: 422,
        body: () => ({
          error: 'invalid_request',
          details: { runtime_code: 'invalid_image', message: 'repository name "Games" must be lowercase' },
        }),
      },
      {
        name: '503: the runtime answers 5xx again and again',
        setup: async () => {
          const nodeId = freshNode().id;
          sim.failNextRequests(50);
          return { nodeId, payload: { image: 'games/a:1' }, user: operator };
        },
        status: 503,
        retryAfter: '5',
        body: () => ({ error: 'unavailable', details: { reason: 'runtime_unavailable' } }),
      },
    ];

    it.each(failures)('$name, auditing nothing', async ({ setup, status, body, retryAfter }) => {
      const { nodeId, payload, user } = await setup();
      const imagesBefore = sim.node(nodeId)?.images;
      const auditsBefore = await runtimeAudits(t);
      const res = await pull(user, nodeId, payload);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body(nodeId));
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
      expect(
        await t.db.selectFrom('event_outbox').select('name').where('request_id', '=', requestIdOf(res)).execute(),
      ).toEqual([]);
      expect(await runtimeAudits(t)).toEqual(auditsBefore);
      expect(sim.node(nodeId)?.images).toEqual(imagesBefore);
      sim.failNextRequests(0);
      sim.settlePulls();
    });
  });

  describe('POST /v1/admin/runtime/nodes/{id}/drain and /undrain', () => {
    it('drains a node with a reason and undrains it without a body, answering the node and auditing each', async () => {
      const node = freshNode();
      const drained = await post(operator, `/v1/admin/runtime/nodes/${node.id}/drain`, { reason: 'kernel upgrade' });
      expect(drained.statusCode).toBe(200);
      expect(drained.json()).toEqual({ ...node, status: 'draining', updated_at: expect.any(String) });
      expect(sim.node(node.id)!.status).toBe('draining');
      expect(await auditOf(t.db, requestIdOf(drained))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.node_drain',
          target_type: 'runtime_node',
          target_id: node.id,
          reason: 'kernel upgrade',
          summary: { before: { status: 'ready' }, after: { status: 'draining' } },
        }),
      ]);

      const undrained = await post(operator, `/v1/admin/runtime/nodes/${node.id}/undrain`);
      expect(undrained.statusCode).toBe(200);
      expect(undrained.json()).toEqual(sim.node(node.id));
      expect(sim.node(node.id)!.status).toBe('ready');
      expect(await auditOf(t.db, requestIdOf(undrained))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.node_undrain',
          target_type: 'runtime_node',
          target_id: node.id,
          reason: null,
          summary: { before: { status: 'draining' }, after: { status: 'ready' } },
        }),
      ]);
    });

    it('takes an empty JSON object as no reason', async () => {
      const node = freshNode();
      const res = await post(operator, `/v1/admin/runtime/nodes/${node.id}/drain`, {});
      expect(res.statusCode).toBe(200);
      expect((await auditOf(t.db, requestIdOf(res)))[0]).toMatchObject({ action: 'runtime.node_drain', reason: null });
    });

    it.each(['drain', 'undrain'])('%s: answers 409 conflict for an offline node, auditing nothing', async (action) => {
      const node = freshNode();
      sim.setNodeStatus(node.id, 'offline');
      const res = await post(operator, `/v1/admin/runtime/nodes/${node.id}/${action}`, { reason: 'try' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'conflict',
        details: { runtime_code: 'node_offline', message: `node ${node.id} is offline` },
      });
      expect(sim.node(node.id)!.status).toBe('offline');
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      [
        '404 for an unknown node',
        () => ({ user: operator, id: 'ghost', payload: undefined }),
        404,
        { error: 'not_found', details: { runtime_code: 'node_not_found', message: 'node ghost does not exist' } },
      ],
      [
        '400 for a reason of 501 characters',
        () => ({ user: operator, id: freshNode().id, payload: { reason: 'r'.repeat(501) } }),
        400,
        schemaError({ path: ['reason'], code: 'too_big', maximum: 500 }),
      ],
      [
        '400 for an unknown key',
        () => ({ user: operator, id: freshNode().id, payload: { reason: 'x', now: true } }),
        400,
        schemaError({ code: 'unrecognized_keys' }),
      ],
      [
        '401 without a token',
        () => ({ user: null, id: freshNode().id, payload: undefined }),
        401,
        { error: 'missing_token' },
      ],
      [
        '403 for a runtime.read-only caller',
        () => ({ user: reader, id: freshNode().id, payload: undefined }),
        403,
        { error: 'forbidden', details: { perm: 'runtime.write' } },
      ],
    ])('drain: answers %s, changing and auditing nothing', async (_name, setup, status, body) => {
      const { user, id, payload } = setup();
      const res = await post(user, `/v1/admin/runtime/nodes/${id}/drain`, payload);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(sim.node(id)?.status ?? 'none').not.toBe('draining');
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it('answers 503 unavailable with Retry-After while the runtime keeps failing, auditing nothing', async () => {
      const node = freshNode();
      sim.failNextRequests(50);
      const res = await post(operator, `/v1/admin/runtime/nodes/${node.id}/drain`);
      expectRuntimeUnavailable(res);
      sim.failNextRequests(0);
      expect(sim.node(node.id)!.status).toBe('ready');
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });
  });

  describe('PUT /v1/admin/runtime/nodes/{id}/pool', () => {
    it('moves a node into another pool and out of every pool, auditing the pool it left and the one it joined', async () => {
      sim.addPool({ id: 'assign-target', name: 'Target' });
      const node = freshNode();
      const moved = await assign(operator, node.id, { pool_id: 'assign-target', reason: 'rebalance' });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toEqual({ ...node, pool_id: 'assign-target', updated_at: expect.any(String) });
      expect(sim.node(node.id)!.pool_id).toBe('assign-target');
      expect(sim.pool('assign-target')!.node_ids).toEqual([node.id]);
      expect(await auditOf(t.db, requestIdOf(moved))).toEqual([
        expect.objectContaining({
          actor_id: operator.id,
          action: 'runtime.node_assign_pool',
          target_type: 'runtime_node',
          target_id: node.id,
          reason: 'rebalance',
          summary: { before: { pool_id: 'default' }, after: { pool_id: 'assign-target' } },
        }),
      ]);

      const removed = await assign(operator, node.id, { pool_id: null });
      expect(removed.statusCode).toBe(200);
      expect(removed.json().pool_id).toBeNull();
      expect(sim.node(node.id)!.pool_id).toBeNull();
      expect(sim.pool('assign-target')!.node_ids).toEqual([]);
      expect(await auditOf(t.db, requestIdOf(removed))).toEqual([
        expect.objectContaining({
          action: 'runtime.node_assign_pool',
          reason: null,
          summary: { before: { pool_id: 'assign-target' }, after: { pool_id: null } },
        }),
      ]);
    });

    it("answers 422 invalid_request with the runtime's pool_not_found for a pool it does not know, moving and auditing nothing", async () => {
      const node = freshNode();
      const res = await assign(operator, node.id, { pool_id: 'no-such-pool' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        details: { runtime_code: 'pool_not_found', message: 'pool no-such-pool does not exist' },
      });
      expect(sim.node(node.id)!.pool_id).toBe('default');
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      [
        '404 for an unknown node',
        () => ({ user: operator, id: 'ghost', payload: { pool_id: 'default' } }),
        404,
        { error: 'not_found', details: { runtime_code: 'node_not_found', message: 'node ghost does not exist' } },
      ],
      [
        '400 without pool_id',
        () => ({ user: operator, id: freshNode().id, payload: { reason: 'x' } }),
        400,
        schemaError({ path: ['pool_id'], code: 'invalid_type' }),
      ],
      [
        '400 for an empty pool_id',
        () => ({ user: operator, id: freshNode().id, payload: { pool_id: '' } }),
        400,
        schemaError({ path: ['pool_id'], code: 'too_small' }),
      ],
      [
        '403 for a runtime.read-only caller',
        () => ({ user: reader, id: freshNode().id, payload: { pool_id: null } }),
        403,
        { error: 'forbidden', details: { perm: 'runtime.write' } },
      ],
    ])('answers %s, auditing nothing', async (_name, setup, status, body) => {
      const { user, id, payload } = setup();
      const res = await assign(user, id, payload);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      if (sim.node(id)) expect(sim.node(id)!.pool_id).toBe('default');
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });
  });
});

describe('runtime node administration with the runtime unreachable', () => {
  let down: App;
  let operator: TestUser;

  beforeAll(async () => {
    down = await startTestApp({ config: { runtimeUrl: `http://127.0.0.1:${await closedPort()}`, runtimeApiKey: 'k' } });
    operator = await createUser(down.db, ['runtime.read', 'runtime.write']);
  });
  afterAll(async () => down.close());

  it.each([
    ['GET', '/v1/admin/runtime/nodes', undefined],
    ['GET', '/v1/admin/runtime/nodes/node-1', undefined],
    ['POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'games/a:1' }],
    ['POST', '/v1/admin/runtime/nodes/node-1/drain', { reason: 'x' }],
    ['POST', '/v1/admin/runtime/nodes/node-1/undrain', undefined],
    ['PUT', '/v1/admin/runtime/nodes/node-1/pool', { pool_id: null }],
  ] as const)('%s %s answers 503 unavailable with Retry-After, auditing nothing', async (method, url, payload) => {
    const res = await down.request({ method, url, token: operator.token, ...(payload ? { payload } : {}) });
    expectRuntimeUnavailable(res);
    expect(await auditOf(down.db, requestIdOf(res))).toEqual([]);
  });
});

describe('the runtime API key', () => {
  // Two apps of its own and trace-level logs: a minute, for a machine busy with other files.
  it('reaches no response body, log line or audit row, whatever the runtime answers', { timeout: 60_000 }, async () => {
    const apiKey = `sim-key-${'s3cr3t'.repeat(6)}`;
    const captured = captureLog();
    const t = await startTestApp({
      log: captured.log,
      config: { logLevel: 'trace' },
      runtimeSimulator: { apiKey, pullDelayMs: PULL_NEVER_FINISHES_MS },
    });
    try {
      const sim = t.kernel.runtimeSimulator!;
      expect(sim.apiKey).toBe(apiKey);
      const operator = await createUser(t.db, ['runtime.read', 'runtime.write']);
      const bodies: string[] = [];
      const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object) => {
        const res = await t.request({ method, url, token: operator.token, ...(payload ? { payload } : {}) });
        bodies.push(res.body, JSON.stringify(res.headers));
        return res.statusCode;
      };
      expect(await call('GET', '/v1/admin/runtime/nodes')).toBe(200);
      expect(await call('POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'games/racer:1' })).toBe(200);
      expect(await call('POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'games/racer:1' })).toBe(409);
      expect(await call('POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'Bad/Ref' })).toBe(422);
      expect(await call('GET', '/v1/admin/runtime/nodes/ghost')).toBe(404);
      expect(await call('POST', '/v1/admin/runtime/nodes/node-2/drain', { reason: 'r' })).toBe(200);
      expect(await call('PUT', '/v1/admin/runtime/nodes/node-2/pool', { pool_id: 'nope' })).toBe(422);
      expect(await call('POST', '/v1/admin/runtime/pools', { id: 'secret-check', name: 'S' })).toBe(201);
      expect(await call('PATCH', '/v1/admin/runtime/pools/secret-check', { name: 'T' })).toBe(200);
      sim.failNextRequests(50);
      expect(await call('GET', '/v1/admin/runtime/nodes/node-1')).toBe(503);
      expect(await call('POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'games/x:1' })).toBe(503);
      sim.failNextRequests(0);
      // Nor is it a credential here: presented as a bearer token it is just an invalid token.
      const asToken = await t.request({ method: 'GET', url: '/v1/admin/runtime/nodes', token: apiKey });
      expect(asToken.statusCode).toBe(401);
      expect(asToken.json()).toEqual({ error: 'invalid_token' });
      bodies.push(asToken.body);

      // An instance holding a wrong key: the runtime's 401 is our 503 (an operator must fix the
      // configuration), and neither key shows anywhere.
      const wrongKey = `wrong-key-${'w1ng'.repeat(6)}`;
      const misconfigured = await startTestApp({
        log: captured.log,
        config: { runtimeUrl: sim.url, runtimeApiKey: wrongKey },
      });
      try {
        const caller = await createUser(misconfigured.db, ['runtime.read', 'runtime.write']);
        for (const [method, url, payload] of [
          ['GET', '/v1/admin/runtime/nodes/node-1', undefined],
          ['POST', '/v1/admin/runtime/nodes/node-1/pull-image', { image: 'games/y:1' }],
        ] as const) {
          const res = await misconfigured.request({
            method,
            url,
            token: caller.token,
            ...(payload ? { payload } : {}),
          });
          expectRuntimeUnavailable(res);
          bodies.push(res.body, JSON.stringify(res.headers));
        }
        expect(captured.text()).toContain('the runtime refused our API key');
        expect(sim.node('node-1')!.images.map((image) => image.image)).not.toContain('games/y:1');
        for (const text of [...bodies, captured.text()]) {
          expect(text).not.toContain(wrongKey);
          expect(text).not.toContain('w1ng');
        }
      } finally {
        await misconfigured.close();
      }

      const audits = await t.db.selectFrom('audit_log').selectAll().execute();
      expect(audits.length).toBeGreaterThanOrEqual(4);
      expect(captured.lines().length).toBeGreaterThan(0);
      for (const text of [...bodies, captured.text(), JSON.stringify(audits)]) {
        expect(text).not.toContain(apiKey);
        expect(text).not.toContain('s3cr3t');
      }
    } finally {
      await t.close();
    }
  });
});
