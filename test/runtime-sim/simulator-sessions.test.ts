import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeSimulator } from '../../src/runtime-sim/simulator.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * The simulator's sessions (placement, idempotent creation, stop) and the control API tests of
 * other modules rely on (failNextRequests, setLatency, requestLog, setNodeStatus, --no-seed).
 * Each test gets a fresh simulator, so capacity arithmetic starts from the seed.
 */

const KEY = 'sim-sessions-test-key-9a2e';

let sim: RuntimeSimulator;
let base = '';

async function api(method: string, path: string, body?: unknown, key: string | null = KEY) {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const refusal = (code: string, message: unknown = expect.any(String)) => ({ error: { code, message } });

let sessionCounter = 0;
function sessionInput(overrides: Record<string, unknown> = {}) {
  return {
    id: `s-${++sessionCounter}`,
    user_id: 'user-1',
    game: { id: 7, slug: 'chess' },
    pool_id: 'default',
    limits: { max_fps: 60 },
    ...overrides,
  };
}

beforeEach(async () => {
  sim = new RuntimeSimulator({ apiKey: KEY, pullDelayMs: 10 });
  base = await sim.listen('127.0.0.1', 0);
});
afterEach(async () => sim.close());

describe('runtime simulator sessions', () => {
  it('creates a session (201) with a play URL and a 32-byte base64url member token, and keeps what it was given', async () => {
    const input = sessionInput({ limits: { max_fps: 30, resolution: '720p' } });
    const res = await api('POST', '/v1/sessions', input);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: input.id,
      node_id: 'node-1',
      pool_id: 'default',
      play_url: `${base}/play/${input.id}`,
      member_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(Buffer.from(res.body.member_token, 'base64url')).toHaveLength(32);

    expect(sim.session(input.id)).toMatchObject({
      status: 'running',
      user_id: 'user-1',
      game_id: 7,
      game: { id: 7, slug: 'chess' },
      limits: { max_fps: 30, resolution: '720p' },
      member_token: res.body.member_token,
      requested_pool_id: 'default',
      ended_at: null,
    });
    expect(sim.node('node-1')!.capacity).toEqual({ slots: 4, used: 1 });

    const read = await api('GET', `/v1/sessions/${input.id}`);
    expect(read).toEqual({
      status: 200,
      body: {
        id: input.id,
        user_id: 'user-1',
        game_id: 7,
        pool_id: 'default',
        node_id: 'node-1',
        status: 'running',
        play_url: `${base}/play/${input.id}`,
        created_at: expect.any(String),
        ended_at: null,
      },
    });
    expect(read.body).not.toHaveProperty('member_token');

    const page = await fetch(`${base}/play/${input.id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Session ${input.id}: chess, running on node-1.`);
  });

  it('is idempotent by id: a repeat answers 200 with the same session and token, taking no second slot', async () => {
    const input = sessionInput();
    const first = await api('POST', '/v1/sessions', input);
    const again = await api('POST', '/v1/sessions', input);
    expect(first.status).toBe(201);
    expect(again).toEqual({ status: 200, body: first.body });
    expect(sim.sessions()).toHaveLength(1);
    expect(sim.node('node-1')!.capacity.used + sim.node('node-2')!.capacity.used).toBe(1);
  });

  it('refuses the same id for another user, game or pool with 409 session_exists', async () => {
    const input = sessionInput();
    await api('POST', '/v1/sessions', input);
    for (const change of [{ user_id: 'user-2' }, { game: { id: 8, slug: 'go' } }, { pool_id: null }]) {
      expect(await api('POST', '/v1/sessions', { ...input, ...change })).toMatchObject({
        status: 409,
        body: refusal('session_exists'),
      });
    }
    expect(sim.sessions()).toHaveLength(1);
  });

  it('places on the least-loaded ready node of the pool and answers 409 no_capacity once every slot is taken', async () => {
    const placed: string[] = [];
    for (let i = 0; i < 8; i += 1) placed.push((await api('POST', '/v1/sessions', sessionInput())).body.node_id);
    expect(placed).toEqual(['node-1', 'node-2', 'node-1', 'node-2', 'node-1', 'node-2', 'node-1', 'node-2']);
    const full = await api('POST', '/v1/sessions', sessionInput());
    expect(full).toMatchObject({
      status: 409,
      body: refusal('no_capacity', 'no ready node in pool default has a free slot'),
    });
    expect(sim.sessions()).toHaveLength(8);

    // Stopping frees a slot on that node, and the next session goes there.
    const stopped = sim.sessions().find((session) => session.node_id === 'node-2')!;
    await api('POST', `/v1/sessions/${stopped.id}/stop`);
    expect(sim.node('node-2')!.capacity.used).toBe(3);
    expect(await api('POST', '/v1/sessions', sessionInput())).toMatchObject({
      status: 201,
      body: { node_id: 'node-2' },
    });
  });

  it('skips draining and offline nodes and nodes of other pools; pool_id null takes any pooled node', async () => {
    sim.addPool({ id: 'other', name: 'Other' });
    sim.addNode({ id: 'other-1', pool_id: 'other', slots: 1 });
    sim.addNode({ id: 'loose', pool_id: null, slots: 8 });
    await api('POST', '/v1/nodes/node-1/drain');
    sim.setNodeStatus('node-2', 'offline');
    expect(await api('POST', '/v1/sessions', sessionInput())).toMatchObject({
      status: 409,
      body: refusal('no_capacity'),
    });

    const anywhere = await api('POST', '/v1/sessions', sessionInput({ pool_id: null }));
    expect(anywhere).toMatchObject({ status: 201, body: { node_id: 'other-1', pool_id: 'other' } });
    expect(sim.session(anywhere.body.id)).toMatchObject({ pool_id: 'other', requested_pool_id: null });
    // other-1 is full; a node in no pool takes no sessions.
    expect(await api('POST', '/v1/sessions', sessionInput({ pool_id: null }))).toMatchObject({
      status: 409,
      body: refusal('no_capacity', 'no ready node has a free slot'),
    });

    await api('POST', '/v1/nodes/node-1/undrain');
    expect(await api('POST', '/v1/sessions', sessionInput())).toMatchObject({
      status: 201,
      body: { node_id: 'node-1' },
    });
  });

  it('answers 404 pool_not_found for an unknown pool', async () => {
    expect(await api('POST', '/v1/sessions', sessionInput({ pool_id: 'atlantis' }))).toMatchObject({
      status: 404,
      body: refusal('pool_not_found', 'pool atlantis does not exist'),
    });
    expect(sim.sessions()).toEqual([]);
  });

  it.each([
    { name: 'no id', change: { id: undefined }, field: 'id' },
    { name: 'an id with a slash', change: { id: 'a/b' }, field: 'id' },
    { name: 'an empty user_id', change: { user_id: '' }, field: 'user_id' },
    { name: 'a game without a slug', change: { game: { id: 1 } }, field: 'game.slug' },
    { name: 'a game id of 0', change: { game: { id: 0, slug: 'x' } }, field: 'game.id' },
    { name: 'limits as an array', change: { limits: [1] }, field: 'limits' },
  ])('refuses $name with 422 invalid_session naming the field', async ({ change, field }) => {
    const res = await api('POST', '/v1/sessions', sessionInput(change));
    expect(res).toMatchObject({
      status: 422,
      body: refusal('invalid_session', expect.stringMatching(new RegExp(`^${field.replace('.', '\\.')}: `))),
    });
    expect(sim.sessions()).toEqual([]);
  });

  it('stops a session (200 stopped, slot freed, play URL gone); stopping again is 200 and changes nothing; 404 session_not_found', async () => {
    const { body: created } = await api('POST', '/v1/sessions', sessionInput());
    const stopped = await api('POST', `/v1/sessions/${created.id}/stop`);
    expect(stopped).toMatchObject({
      status: 200,
      body: { id: created.id, status: 'stopped', play_url: null, node_id: 'node-1', ended_at: expect.any(String) },
    });
    expect(sim.node('node-1')!.capacity.used).toBe(0);
    const again = await api('POST', `/v1/sessions/${created.id}/stop`);
    expect(again).toEqual(stopped);
    expect(await api('GET', `/v1/sessions/${created.id}`)).toEqual(stopped);

    expect(await api('GET', '/v1/sessions/ghost')).toMatchObject({
      status: 404,
      body: refusal('session_not_found', 'session ghost does not exist'),
    });
    expect(await api('POST', '/v1/sessions/ghost/stop')).toMatchObject({
      status: 404,
      body: refusal('session_not_found'),
    });
  });

  it('fails the running sessions of a node that goes offline', async () => {
    const { body: created } = await api('POST', '/v1/sessions', sessionInput());
    sim.setNodeStatus('node-1', 'offline');
    expect(await api('GET', `/v1/sessions/${created.id}`)).toMatchObject({
      status: 200,
      body: { status: 'failed', play_url: null, ended_at: expect.any(String) },
    });
    expect(sim.node('node-1')!.capacity.used).toBe(0);
  });
});

describe('runtime simulator control API', () => {
  it('failNextRequests answers the next N API calls with the status, before auth, then recovers', async () => {
    sim.failNextRequests(2, 502);
    expect(await api('GET', '/v1/pools')).toMatchObject({ status: 502, body: refusal('simulated_failure') });
    expect(await api('GET', '/v1/pools', undefined, null)).toMatchObject({ status: 502 });
    expect((await api('GET', '/v1/pools')).status).toBe(200);
    sim.failNextRequests(1);
    expect((await api('POST', '/v1/pools', { id: 'after-failure', name: 'x' })).status).toBe(503);
    expect(sim.pool('after-failure')).toBeUndefined();
  });

  it('setLatency holds every answer', async () => {
    sim.setLatency(300);
    const started = performance.now();
    expect((await api('GET', '/v1/health')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    sim.setLatency(0);
    const quick = performance.now();
    await api('GET', '/v1/health');
    expect(performance.now() - quick).toBeLessThan(250);
  });

  it('close() ends held requests at once and is idempotent', async () => {
    sim.setLatency(10_000);
    const seen = sim.requestLog().length;
    const held = fetch(`${base}/v1/health`).then(
      () => 'answered',
      () => 'failed',
    );
    await waitFor(() => sim.requestLog().length > seen, 'the request to reach the simulator');
    const started = performance.now();
    await Promise.all([sim.close(), sim.close()]);
    await sim.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await held).toMatch(/answered|failed/);
    await expect(fetch(`${base}/v1/health`)).rejects.toThrow();
  });

  it('requestLog lists method and URL of every request received, refused ones included', async () => {
    await api('GET', '/v1/nodes?pool_id=default');
    await api('POST', '/v1/nodes/node-1/drain', undefined, null);
    expect(sim.requestLog()).toEqual(['GET /v1/nodes?pool_id=default', 'POST /v1/nodes/node-1/drain']);
    sim.clearRequestLog();
    expect(sim.requestLog()).toEqual([]);
  });

  it('seed: false starts with no pools and no nodes', async () => {
    const empty = new RuntimeSimulator({ apiKey: KEY, seed: false });
    const emptyBase = await empty.listen('127.0.0.1', 0);
    try {
      const headers = { authorization: `Bearer ${KEY}` };
      expect(await (await fetch(`${emptyBase}/v1/nodes`, { headers })).json()).toEqual({ data: [] });
      expect(await (await fetch(`${emptyBase}/v1/pools`, { headers })).json()).toEqual({ data: [] });
    } finally {
      await empty.close();
    }
  });

  it('refuses to be built without a key', () => {
    expect(() => new RuntimeSimulator({ apiKey: '' })).toThrow('apiKey is required');
  });
});
