import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeSimulator } from '../../src/runtime-sim/simulator.js';

/**
 * The runtime simulator's HTTP API (docs/runtime-api.md) over real loopback HTTP: auth, nodes,
 * image pulls and pools, every documented status and error code. Sessions and the control API
 * are in simulator-sessions.test.ts.
 */

const KEY = 'sim-api-test-key-5f1c';
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

function client(base: () => string) {
  return async (method: string, path: string, body?: unknown, key: string | null = KEY): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base()}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
  };
}

const refusal = (code: string, message: unknown = expect.any(String)) => ({ error: { code, message } });

describe('runtime simulator API: auth, nodes, images, pools', () => {
  let clock = T0;
  const sim = new RuntimeSimulator({ apiKey: KEY, pullDelayMs: 60_000, now: () => new Date(clock) });
  let base = '';
  const api = client(() => base);
  const tick = () => {
    clock += 1_000;
    return new Date(clock).toISOString();
  };

  beforeAll(async () => {
    base = await sim.listen('127.0.0.1', 0);
  });
  afterAll(async () => sim.close());

  describe('auth', () => {
    it('serves /v1/health without a key', async () => {
      expect(await api('GET', '/v1/health', undefined, null)).toMatchObject({ status: 200, body: { ok: true } });
    });

    it.each([
      { name: 'no Authorization header', header: null },
      { name: 'a wrong key', header: `Bearer ${KEY}x` },
      { name: 'a prefix of the key', header: `Bearer ${KEY.slice(0, -1)}` },
      { name: 'the key without the Bearer scheme', header: KEY },
      { name: 'the key as Basic credentials', header: `Basic ${KEY}` },
    ])('refuses $name with 401 unauthorized on every route', async ({ header }) => {
      for (const [method, path] of [
        ['GET', '/v1/nodes'],
        ['GET', '/v1/pools/default'],
        ['POST', '/v1/sessions'],
        ['POST', '/v1/nodes/node-1/drain'],
        ['GET', '/v1/nowhere'],
      ]) {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: header === null ? {} : { authorization: header },
        });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(await res.json()).toEqual(refusal('unauthorized'));
      }
      // Refused before handling: the drain did not happen.
      expect(sim.node('node-1')!.status).toBe('ready');
    });

    it('accepts the key with any case of "Bearer"', async () => {
      const res = await fetch(`${base}/v1/pools`, { headers: { authorization: `bearer ${KEY}` } });
      expect(res.status).toBe(200);
    });
  });

  describe('nodes', () => {
    it('lists the seeded nodes sorted by id, with capacity and images', async () => {
      const res = await api('GET', '/v1/nodes');
      expect(res.status).toBe(200);
      const seeded = (id: string) => ({
        id,
        pool_id: 'default',
        status: 'ready',
        region: 'local',
        capacity: { slots: 4, used: 0 },
        images: [{ image: 'games/base:latest', status: 'ready', error: null, updated_at: new Date(T0).toISOString() }],
        created_at: new Date(T0).toISOString(),
        updated_at: new Date(T0).toISOString(),
      });
      expect(res.body).toEqual({ data: [seeded('node-1'), seeded('node-2')] });
    });

    it('filters by pool_id and status; an empty filter value is no filter; a bad status is 422 invalid_request', async () => {
      sim.addPool({ id: 'filters', name: 'Filters' });
      sim.addNode({ id: 'f-b', pool_id: 'filters', status: 'offline' });
      sim.addNode({ id: 'f-a', pool_id: 'filters' });
      const ids = async (query: string) =>
        ((await api('GET', `/v1/nodes${query}`)).body.data as { id: string }[]).map((node) => node.id);
      expect(await ids('?pool_id=filters')).toEqual(['f-a', 'f-b']);
      expect(await ids('?pool_id=filters&status=offline')).toEqual(['f-b']);
      expect(await ids('?status=offline')).toEqual(['f-b']);
      expect(await ids('?pool_id=nobody')).toEqual([]);
      expect(await ids('?pool_id=&status=')).toEqual(expect.arrayContaining(['f-a', 'f-b', 'node-1', 'node-2']));
      const bad = await api('GET', '/v1/nodes?status=sleeping');
      expect(bad).toMatchObject({ status: 422, body: refusal('invalid_request', expect.stringContaining('status')) });
    });

    it('reads one node; an unknown one is 404 node_not_found; ids travel URL-encoded', async () => {
      sim.addNode({ id: 'rack 7/slot.3', slots: 2, region: null });
      const found = await api('GET', `/v1/nodes/${encodeURIComponent('rack 7/slot.3')}`);
      expect(found).toMatchObject({
        status: 200,
        body: { id: 'rack 7/slot.3', pool_id: null, region: null, capacity: { slots: 2, used: 0 }, images: [] },
      });
      expect(await api('GET', '/v1/nodes/ghost')).toMatchObject({
        status: 404,
        body: refusal('node_not_found', 'node ghost does not exist'),
      });
    });

    it('drains and undrains (repeats are no-ops); 404 node_not_found; 409 node_offline', async () => {
      sim.addNode({ id: 'drainable' });
      const at = tick();
      const drained = await api('POST', '/v1/nodes/drainable/drain');
      expect(drained).toMatchObject({ status: 200, body: { id: 'drainable', status: 'draining', updated_at: at } });
      tick();
      expect(await api('POST', '/v1/nodes/drainable/drain')).toMatchObject({
        status: 200,
        body: { status: 'draining', updated_at: at },
      });
      expect(sim.node('drainable')!.status).toBe('draining');
      const undrained = await api('POST', '/v1/nodes/drainable/undrain');
      expect(undrained).toMatchObject({ status: 200, body: { status: 'ready' } });
      expect(sim.node('drainable')!.status).toBe('ready');

      expect(await api('POST', '/v1/nodes/ghost/drain')).toMatchObject({
        status: 404,
        body: refusal('node_not_found'),
      });
      expect(await api('POST', '/v1/nodes/ghost/undrain')).toMatchObject({
        status: 404,
        body: refusal('node_not_found'),
      });
      sim.setNodeStatus('drainable', 'offline');
      expect(await api('POST', '/v1/nodes/drainable/drain')).toMatchObject({
        status: 409,
        body: refusal('node_offline'),
      });
      expect(await api('POST', '/v1/nodes/drainable/undrain')).toMatchObject({
        status: 409,
        body: refusal('node_offline'),
      });
      expect(sim.node('drainable')!.status).toBe('offline');
    });

    it('moves a node into a pool and out of every pool; 404 node_not_found; 422 pool_not_found or a bad body', async () => {
      sim.addPool({ id: 'movers', name: 'Movers' });
      sim.addNode({ id: 'mover' });
      const into = await api('PUT', '/v1/nodes/mover/pool', { pool_id: 'movers' });
      expect(into).toMatchObject({ status: 200, body: { id: 'mover', pool_id: 'movers' } });
      expect((await api('GET', '/v1/pools/movers')).body.node_ids).toEqual(['mover']);
      const out = await api('PUT', '/v1/nodes/mover/pool', { pool_id: null });
      expect(out).toMatchObject({ status: 200, body: { pool_id: null } });
      expect(sim.pool('movers')!.node_ids).toEqual([]);

      expect(await api('PUT', '/v1/nodes/ghost/pool', { pool_id: 'movers' })).toMatchObject({
        status: 404,
        body: refusal('node_not_found'),
      });
      expect(await api('PUT', '/v1/nodes/mover/pool', { pool_id: 'nope' })).toMatchObject({
        status: 422,
        body: refusal('pool_not_found', 'pool nope does not exist'),
      });
      expect(await api('PUT', '/v1/nodes/mover/pool', {})).toMatchObject({
        status: 422,
        body: refusal('invalid_request', expect.stringContaining('pool_id')),
      });
      expect(sim.node('mover')!.pool_id).toBeNull();
    });
  });

  describe('image pulls', () => {
    it('accepts a pull with 202, shows it pulling, and settles it ready', async () => {
      sim.addNode({ id: 'puller' });
      const at = tick();
      const res = await api('POST', '/v1/nodes/puller/images', {
        image: 'registry.example.com:5000/games/chess:1.2.0',
      });
      expect(res).toMatchObject({
        status: 202,
        body: {
          ok: true,
          image: {
            image: 'registry.example.com:5000/games/chess:1.2.0',
            status: 'pulling',
            error: null,
            updated_at: at,
          },
        },
      });
      expect((await api('GET', '/v1/nodes/puller')).body.images).toEqual([res.body.image]);

      const settledAt = tick();
      sim.settlePulls();
      expect((await api('GET', '/v1/nodes/puller')).body.images).toEqual([
        { image: 'registry.example.com:5000/games/chess:1.2.0', status: 'ready', error: null, updated_at: settledAt },
      ]);
      // A ready image may be pulled again (a moved tag); it is pulling once more.
      expect(
        await api('POST', '/v1/nodes/puller/images', { image: 'registry.example.com:5000/games/chess:1.2.0' }),
      ).toMatchObject({ status: 202, body: { image: { status: 'pulling' } } });
    });

    it('fails an image reference containing does-not-exist after the delay, with an error', async () => {
      sim.addNode({ id: 'missing-images' });
      expect(await api('POST', '/v1/nodes/missing-images/images', { image: 'games/does-not-exist:1' })).toMatchObject({
        status: 202,
        body: { ok: true },
      });
      expect(sim.node('missing-images')!.images[0]!.status).toBe('pulling');
      sim.settlePulls();
      expect(sim.node('missing-images')!.images).toEqual([
        {
          image: 'games/does-not-exist:1',
          status: 'failed',
          error: 'manifest for games/does-not-exist:1 not found: manifest unknown',
          updated_at: expect.any(String),
        },
      ]);
    });

    it('finishes on its own after pullDelayMs', async () => {
      const quick = new RuntimeSimulator({ apiKey: KEY, pullDelayMs: 30 });
      const quickBase = await quick.listen('127.0.0.1', 0);
      try {
        const res = await fetch(`${quickBase}/v1/nodes/node-1/images`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ image: 'games/quick:1' }),
        });
        expect(res.status).toBe(202);
        await expect
          .poll(() => quick.node('node-1')!.images.find((image) => image.image === 'games/quick:1')?.status, {
            timeout: 2_000,
          })
          .toBe('ready');
      } finally {
        await quick.close();
      }
    });

    it('answers 404 node_not_found, 409 pull_in_progress and 409 node_offline, changing nothing', async () => {
      sim.addNode({ id: 'busy' });
      expect(await api('POST', '/v1/nodes/ghost/images', { image: 'games/a:1' })).toMatchObject({
        status: 404,
        body: refusal('node_not_found'),
      });
      expect(await api('POST', '/v1/nodes/busy/images', { image: 'games/a:1' })).toMatchObject({ status: 202 });
      const again = await api('POST', '/v1/nodes/busy/images', { image: 'games/a:1' });
      expect(again).toMatchObject({
        status: 409,
        body: refusal('pull_in_progress', 'games/a:1 is already being pulled onto node busy'),
      });
      // Another image on the same node is a separate pull.
      expect(await api('POST', '/v1/nodes/busy/images', { image: 'games/b:1' })).toMatchObject({ status: 202 });

      sim.addNode({ id: 'down', status: 'offline' });
      expect(await api('POST', '/v1/nodes/down/images', { image: 'games/a:1' })).toMatchObject({
        status: 409,
        body: refusal('node_offline'),
      });
      expect(sim.node('down')!.images).toEqual([]);
    });

    it('fails a pull whose node goes offline before it finishes', async () => {
      sim.addNode({ id: 'flaky' });
      await api('POST', '/v1/nodes/flaky/images', { image: 'games/a:1' });
      sim.setNodeStatus('flaky', 'offline');
      sim.settlePulls();
      expect(sim.node('flaky')!.images[0]).toMatchObject({
        status: 'failed',
        error: 'the node went offline during the pull',
      });
    });

    it.each([
      { image: 'Games/Chess:1', message: 'repository name "Games" must be lowercase' },
      {
        image: 'games/chess:-bad',
        message: 'tag "-bad" must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
      },
      {
        image: 'games/chess@sha256:abc',
        message: 'digest "sha256:abc" must be "sha256:" followed by 64 lowercase hex digits',
      },
      { image: 'games//chess', message: 'the repository name has an empty path component' },
      { image: 'games/ chess', message: 'the image reference contains whitespace' },
      { image: '', message: 'the image reference is empty' },
      { image: `games/${'a'.repeat(495)}`, message: 'the image reference is longer than 500 characters' },
      { image: 42, message: 'image: must be a string' },
      { image: undefined, message: 'image: is required' },
    ])('refuses image $image with 422 invalid_image saying why', async ({ image, message }) => {
      if (sim.node('validator') === undefined) sim.addNode({ id: 'validator' });
      const res = await api('POST', '/v1/nodes/validator/images', image === undefined ? {} : { image });
      expect(res).toMatchObject({ status: 422, body: refusal('invalid_image', message) });
      expect(sim.node('validator')!.images).toEqual([]);
    });
  });

  describe('pools', () => {
    it('creates a pool (201), reads it, lists pools sorted by id', async () => {
      const at = tick();
      const res = await api('POST', '/v1/pools', { id: 'eu-west', name: 'EU West', description: 'Frankfurt racks' });
      const pool = {
        id: 'eu-west',
        name: 'EU West',
        description: 'Frankfurt racks',
        node_ids: [],
        created_at: at,
        updated_at: at,
      };
      expect(res).toMatchObject({ status: 201, body: pool });
      expect(await api('GET', '/v1/pools/eu-west')).toMatchObject({ status: 200, body: pool });
      const ids = ((await api('GET', '/v1/pools')).body.data as { id: string }[]).map((p) => p.id);
      expect(ids).toEqual([...ids].sort());
      expect(ids).toEqual(expect.arrayContaining(['default', 'eu-west']));
      expect((await api('GET', '/v1/pools/default')).body).toMatchObject({
        id: 'default',
        name: 'Default pool',
        description: null,
        node_ids: ['node-1', 'node-2'],
      });
      expect(await api('POST', '/v1/pools', { id: 'no-description', name: 'N' })).toMatchObject({
        status: 201,
        body: { description: null },
      });
    });

    it('answers 409 pool_exists for a taken id, keeping the first pool', async () => {
      await api('POST', '/v1/pools', { id: 'taken', name: 'First' });
      expect(await api('POST', '/v1/pools', { id: 'taken', name: 'Second' })).toMatchObject({
        status: 409,
        body: refusal('pool_exists', 'pool taken already exists'),
      });
      expect(sim.pool('taken')!.name).toBe('First');
    });

    it.each([
      { name: 'an id with uppercase', body: { id: 'EU', name: 'x' }, field: 'id' },
      { name: 'an id starting with "-"', body: { id: '-eu', name: 'x' }, field: 'id' },
      { name: 'an id of 64 characters', body: { id: 'a'.repeat(64), name: 'x' }, field: 'id' },
      { name: 'no id', body: { name: 'x' }, field: 'id' },
      { name: 'an empty name', body: { id: 'p1', name: '' }, field: 'name' },
      { name: 'a name of 101 characters', body: { id: 'p1', name: 'n'.repeat(101) }, field: 'name' },
      {
        name: 'a description of 501 characters',
        body: { id: 'p1', name: 'x', description: 'd'.repeat(501) },
        field: 'description',
      },
    ])('refuses $name with 422 invalid_pool naming the field', async ({ body, field }) => {
      const res = await api('POST', '/v1/pools', body);
      expect(res).toMatchObject({
        status: 422,
        body: refusal('invalid_pool', expect.stringMatching(new RegExp(`^${field}: `))),
      });
      expect(sim.pool('p1')).toBeUndefined();
    });

    it('accepts the bounds: a 63-character id, a 100-character name, a 500-character description', async () => {
      const res = await api('POST', '/v1/pools', {
        id: `b${'9'.repeat(62)}`,
        name: 'n'.repeat(100),
        description: 'd'.repeat(500),
      });
      expect(res.status).toBe(201);
    });

    it('updates name and description (null clears); omitted fields stay; 404 pool_not_found; 422 invalid_pool', async () => {
      await api('POST', '/v1/pools', { id: 'patched', name: 'Before', description: 'Old' });
      const at = tick();
      expect(await api('PATCH', '/v1/pools/patched', { name: 'After' })).toMatchObject({
        status: 200,
        body: { name: 'After', description: 'Old', updated_at: at },
      });
      expect(await api('PATCH', '/v1/pools/patched', { description: null })).toMatchObject({
        status: 200,
        body: { name: 'After', description: null },
      });
      expect(await api('PATCH', '/v1/pools/ghost', { name: 'x' })).toMatchObject({
        status: 404,
        body: refusal('pool_not_found'),
      });
      expect(await api('GET', '/v1/pools/ghost')).toMatchObject({
        status: 404,
        body: refusal('pool_not_found', 'pool ghost does not exist'),
      });
      expect(await api('PATCH', '/v1/pools/patched', { name: '' })).toMatchObject({
        status: 422,
        body: refusal('invalid_pool', expect.stringMatching(/^name: /)),
      });
      expect(sim.pool('patched')).toMatchObject({ name: 'After', description: null });
    });
  });

  describe('malformed requests', () => {
    it('answers malformed JSON 400 invalid_json, a non-JSON body 415, an unknown route 404 not_found', async () => {
      const bad = await fetch(`${base}/v1/pools`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"id":',
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual(refusal('invalid_json'));
      const text = await fetch(`${base}/v1/pools`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' },
        body: 'id=x',
      });
      expect(text.status).toBe(415);
      expect(await text.json()).toEqual(refusal('unsupported_media_type'));
      expect(await api('GET', '/v1/nowhere')).toMatchObject({
        status: 404,
        body: refusal('not_found', 'no route GET /v1/nowhere'),
      });
      expect(await api('POST', '/v1/pools')).toMatchObject({
        status: 422,
        body: refusal('invalid_pool', 'a JSON object body is required'),
      });
    });
  });
});
