import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { captureLog } from '../../helpers/captured-log.js';
import { expectRuntimeUnavailable, schemaError } from '../../helpers/expectations.js';
import {
  putOnPlan,
  seedGame,
  sessionRow,
  sessionRowsOf,
  setPanicLevel,
  simulatorOf,
  startSession,
  stopMine,
  stopOnRuntime,
  storedText,
  type App,
} from './fixtures.js';
import { closedPort } from '../../helpers/ports.js';

/**
 * POST /v1/me/sessions: a player starts a game on the Runtime (the in-process simulator, over
 * real HTTP). Checked in the response, the game_sessions row and the simulator's own state.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('start a game session (POST /v1/me/sessions)', () => {
  let t: App;
  let sim: RuntimeSimulator;
  let operator: TestUser;
  const captured = captureLog();
  /** Every response body of this file, searched for the runtime API key at the end. */
  const bodies: string[] = [];

  async function start(user: TestUser, gameId: unknown): Promise<LightMyRequestResponse> {
    const response = await startSession(t, user, gameId);
    bodies.push(response.body);
    return response;
  }

  const runtimeSessionsOf = (userId: string) => sim.sessions().filter((session) => session.user_id === userId);

  beforeAll(async () => {
    t = await startTestApp({ log: captured.log });
    sim = simulatorOf(t);
    operator = await createUser(t.db, ['ops.panic']);
    sim.addPool({ id: 'gold', name: 'Gold' });
    sim.addNode({ id: 'gold-1', pool_id: 'gold', slots: 4 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('201 with exactly session_id, play_url and member_token; the row is active where the runtime placed it', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const response = await start(player, game.id);
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['member_token', 'play_url', 'session_id']);
    expect(body.session_id).toMatch(UUID);

    const runtime = sim.session(body.session_id)!;
    expect(body).toEqual({ session_id: runtime.id, play_url: runtime.play_url, member_token: runtime.member_token });
    // No plan: no pool asked for (the runtime chose), no limits.
    expect(runtime).toMatchObject({
      user_id: player.id,
      game_id: game.id,
      game: { id: game.id, slug: game.slug },
      status: 'running',
      requested_pool_id: null,
      limits: {},
    });

    const row = await sessionRow(t, body.session_id);
    expect(row).toEqual({
      id: body.session_id,
      user_id: player.id,
      game_id: game.id,
      game_slug: game.slug,
      game_title: game.title,
      pool_id: runtime.pool_id,
      node_id: runtime.node_id,
      status: 'active',
      end_reason: null,
      stopped_by: null,
      play_url: runtime.play_url,
      created_at: expect.any(Date),
      started_at: expect.any(Date),
      ended_at: null,
    });
    expect(runtime.pool_id).not.toBeNull();
    expect(row!.started_at!.getTime()).toBeGreaterThanOrEqual(row!.created_at.getTime());
    expect(await storedText(t)).not.toContain(body.member_token);
  });

  it("places the session in the pool of the caller's tier (ruleset limits.pool_id) and passes the ruleset limits", async () => {
    const player = await createUser(t.db);
    await putOnPlan(t, player.id, { pool_id: 'gold', max_fps: 120 });
    const game = await seedGame(t);
    const response = await start(player, game.id);
    expect(response.statusCode, response.body).toBe(201);
    const { session_id } = response.json();
    expect(sim.session(session_id)).toMatchObject({
      requested_pool_id: 'gold',
      pool_id: 'gold',
      node_id: 'gold-1',
      limits: { pool_id: 'gold', max_fps: 120 },
    });
    expect(await sessionRow(t, session_id)).toMatchObject({ status: 'active', pool_id: 'gold', node_id: 'gold-1' });
  });

  it.each([
    {
      name: 'an inactive ruleset does not apply',
      limits: { pool_id: 'gold', max_fps: 120 },
      isActive: false,
      pool: null,
      passed: {},
    },
    {
      name: 'a pool_id that is not a string lets the runtime choose',
      limits: { pool_id: 7, max_fps: 60 },
      isActive: true,
      pool: null,
      passed: { pool_id: 7, max_fps: 60 },
    },
  ])('$name', async ({ limits, isActive, pool, passed }) => {
    const player = await createUser(t.db);
    await putOnPlan(t, player.id, limits, { isActive });
    const response = await start(player, (await seedGame(t)).id);
    expect(response.statusCode, response.body).toBe(201);
    expect(sim.session(response.json().session_id)).toMatchObject({ requested_pool_id: pool, limits: passed });
  });

  it('a second start while one is live is 409 conflict naming the live session; nothing new is stored or started', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const first = await start(player, game.id);
    expect(first.statusCode).toBe(201);
    const { session_id } = first.json();

    const second = await start(player, (await seedGame(t)).id);
    expect(second.statusCode, second.body).toBe(409);
    expect(second.json()).toEqual({ error: 'conflict', details: { reason: expect.any(String), session_id } });
    expect((await sessionRowsOf(t, player.id)).map((row) => [row.id, row.status])).toEqual([[session_id, 'active']]);
    expect(runtimeSessionsOf(player.id).map((session) => [session.id, session.status])).toEqual([
      [session_id, 'running'],
    ]);
  });

  it.each([
    { name: 'stopped on the runtime', end: async (id: string) => stopOnRuntime(sim, id), runtimeStatus: 'stopped' },
    {
      name: 'failed on the runtime (its node went offline)',
      end: async (id: string) => {
        sim.setNodeStatus(sim.session(id)!.node_id!, 'offline');
        sim.setNodeStatus(sim.session(id)!.node_id!, 'ready');
      },
      runtimeStatus: 'failed',
    },
  ])(
    'reconciles a live session the runtime has ended ($name): it is closed as runtime_ended and the new start succeeds',
    async ({ end, runtimeStatus }) => {
      const player = await createUser(t.db);
      await putOnPlan(t, player.id, { pool_id: 'gold' });
      const game = await seedGame(t);
      const first = (await start(player, game.id)).json().session_id as string;
      await end(first);
      expect(sim.session(first)!.status).toBe(runtimeStatus);

      const again = await start(player, game.id);
      expect(again.statusCode, again.body).toBe(201);
      const second = again.json().session_id as string;
      expect(second).not.toBe(first);
      expect(await sessionRow(t, first)).toMatchObject({
        status: 'ended',
        end_reason: 'runtime_ended',
        stopped_by: null,
        ended_at: new Date(sim.session(first)!.ended_at!),
      });
      expect(await sessionRow(t, second)).toMatchObject({ status: 'active', end_reason: null, ended_at: null });
      expect(sim.session(second)!.status).toBe('running');
    },
  );

  it('reconciles a live row the runtime does not know (404): closed as runtime_ended', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const orphan = randomUUID();
    await t.db
      .insertInto('game_sessions')
      .values({
        id: orphan,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        status: 'active',
        node_id: 'gone',
        play_url: 'http://gone.test/play',
      })
      .execute();
    sim.clearRequestLog();
    const response = await start(player, game.id);
    expect(response.statusCode, response.body).toBe(201);
    expect(sim.requestLog()).toContain(`GET /v1/sessions/${orphan}`);
    expect(await sessionRow(t, orphan)).toMatchObject({
      status: 'ended',
      end_reason: 'runtime_ended',
      ended_at: expect.any(Date),
    });
  });

  it('a starting row younger than the start deadline is live without asking the runtime (another request is creating it); an old one is asked about', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const fresh = randomUUID();
    await t.db
      .insertInto('game_sessions')
      .values({
        id: fresh,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        status: 'starting',
      })
      .execute();
    sim.clearRequestLog();
    const refused = await start(player, game.id);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().details.session_id).toBe(fresh);
    expect(sim.requestLog()).toEqual([]);
    expect(await sessionRow(t, fresh)).toMatchObject({ status: 'starting' });

    // An hour old: that start is long dead. The runtime never heard of it, so it is closed.
    await t.db
      .updateTable('game_sessions')
      .set({ created_at: sql`now() - interval '1 hour'` })
      .where('id', '=', fresh)
      .execute();
    const started = await start(player, game.id);
    expect(started.statusCode, started.body).toBe(201);
    expect(sim.requestLog()).toContain(`GET /v1/sessions/${fresh}`);
    expect(await sessionRow(t, fresh)).toMatchObject({ status: 'ended', end_reason: 'runtime_ended' });
  });

  it('two racing starts: exactly one 201 and one 409 naming it; one live row, one runtime session', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    sim.setLatency(100);
    try {
      const responses = await Promise.all([start(player, game.id), start(player, game.id)]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses, responses.map((response) => response.body).join(' | ')).toEqual([201, 409]);
      const created = responses.find((response) => response.statusCode === 201)!.json();
      const refused = responses.find((response) => response.statusCode === 409)!.json();
      expect(refused).toEqual({
        error: 'conflict',
        details: { reason: expect.any(String), session_id: created.session_id },
      });
      expect((await sessionRowsOf(t, player.id)).map((row) => [row.id, row.status])).toEqual([
        [created.session_id, 'active'],
      ]);
      expect(runtimeSessionsOf(player.id).map((session) => session.id)).toEqual([created.session_id]);
    } finally {
      sim.setLatency(0);
    }
  });

  it('two racing starts that both closed the same dead session: the unique index lets one in, the other is 409 naming it', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const dead = randomUUID();
    await t.db
      .insertInto('game_sessions')
      .values({
        id: dead,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        status: 'active',
        node_id: 'gone',
      })
      .execute();
    sim.clearRequestLog();
    sim.setLatency(150);
    try {
      const responses = await Promise.all([start(player, game.id), start(player, game.id)]);
      expect(
        responses.map((response) => response.statusCode).sort(),
        responses.map((response) => response.body).join(' | '),
      ).toEqual([201, 409]);
      const created = responses.find((response) => response.statusCode === 201)!.json();
      expect(responses.find((response) => response.statusCode === 409)!.json()).toEqual({
        error: 'conflict',
        details: { reason: expect.any(String), session_id: created.session_id },
      });
      // Both asked the runtime about the dead session and both got past it: the insert decided.
      expect(sim.requestLog().filter((line) => line === `GET /v1/sessions/${dead}`)).toHaveLength(2);
      const rows = await sessionRowsOf(t, player.id);
      expect(rows.map((row) => [row.id, row.status, row.end_reason])).toEqual([
        [dead, 'ended', 'runtime_ended'],
        [created.session_id, 'active', null],
      ]);
      expect(runtimeSessionsOf(player.id).map((session) => session.id)).toEqual([created.session_id]);
    } finally {
      sim.setLatency(0);
    }
  });

  it.each([
    { name: 'a draft game', game: async () => (await seedGame(t, 'draft')).id },
    { name: 'a hidden game', game: async () => (await seedGame(t, 'hidden')).id },
    { name: 'an unknown game', game: async () => 2_147_483_647 },
  ])('$name is 404 game_not_found; no row, nothing asked of the runtime', async ({ game }) => {
    const player = await createUser(t.db);
    const gameId = await game();
    sim.clearRequestLog();
    const response = await start(player, gameId);
    expect(response.statusCode, response.body).toBe(404);
    expect(response.json()).toEqual({ error: 'game_not_found' });
    expect(await sessionRowsOf(t, player.id)).toEqual([]);
    expect(sim.requestLog()).toEqual([]);
  });

  it.each([
    { name: 'game_id 0', payload: { game_id: 0 }, issue: { code: 'too_small', path: ['game_id'] } },
    { name: 'a string game_id', payload: { game_id: '1' }, issue: { code: 'invalid_type', path: ['game_id'] } },
    { name: 'a fractional game_id', payload: { game_id: 1.5 }, issue: { code: 'invalid_type', path: ['game_id'] } },
    { name: 'no game_id', payload: {}, issue: { code: 'invalid_type', path: ['game_id'] } },
    { name: 'an unknown key', payload: { game_id: 1, pool_id: 'gold' }, issue: { code: 'unrecognized_keys' } },
  ])('400 SchemaError for $name; no row', async ({ payload, issue }) => {
    const player = await createUser(t.db);
    const response = await t.request({ method: 'POST', url: '/v1/me/sessions', token: player.token, payload });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual(schemaError(issue));
    expect(await sessionRowsOf(t, player.id)).toEqual([]);
  });

  it("no capacity (the pool's only slot is taken) is 503 unavailable with Retry-After; the row is failed start_failed", async () => {
    // Made here: a session without a pool may land on any pooled node, so an earlier one could take this slot.
    sim.addPool({ id: 'tiny', name: 'Tiny' });
    sim.addNode({ id: 'tiny-1', pool_id: 'tiny', slots: 1 });
    const holder = await createUser(t.db);
    const player = await createUser(t.db);
    await putOnPlan(t, holder.id, { pool_id: 'tiny' });
    await putOnPlan(t, player.id, { pool_id: 'tiny' });
    const game = await seedGame(t);
    expect((await start(holder, game.id)).statusCode).toBe(201);

    const response = await start(player, game.id);
    expectRuntimeUnavailable(response, 'no_capacity');
    const rows = await sessionRowsOf(t, player.id);
    expect(rows).toEqual([
      expect.objectContaining({
        status: 'failed',
        end_reason: 'start_failed',
        ended_at: expect.any(Date),
        node_id: null,
        play_url: null,
        pool_id: 'tiny',
      }),
    ]);
    expect(runtimeSessionsOf(player.id)).toEqual([]);
    // A failed start is history, not a live session: the next start is not blocked by it.
    expect((await stopMine(t, holder)).statusCode).toBe(204);
    const retried = await start(player, game.id);
    expect(retried.statusCode, retried.body).toBe(201);
  });

  it('no ready node anywhere (all offline) is 503 no_capacity', async () => {
    const player = await createUser(t.db);
    const nodes = ['node-1', 'node-2', 'gold-1', 'tiny-1'];
    for (const node of nodes) sim.setNodeStatus(node, 'offline');
    try {
      expectRuntimeUnavailable(await start(player, (await seedGame(t)).id), 'no_capacity');
      expect(await sessionRowsOf(t, player.id)).toEqual([
        expect.objectContaining({ status: 'failed', end_reason: 'start_failed' }),
      ]);
    } finally {
      for (const node of nodes) sim.setNodeStatus(node, 'ready');
    }
  });

  it('a pool the runtime does not have is 503 unavailable naming pool_not_found; the row is failed', async () => {
    const player = await createUser(t.db);
    await putOnPlan(t, player.id, { pool_id: 'no-such-pool' });
    expectRuntimeUnavailable(await start(player, (await seedGame(t)).id), 'pool_not_found');
    expect(await sessionRowsOf(t, player.id)).toEqual([
      expect.objectContaining({ status: 'failed', end_reason: 'start_failed', pool_id: 'no-such-pool' }),
    ]);
  });

  it('a runtime answering 5xx is 503 runtime_unavailable; the row is failed', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    sim.failNextRequests(10, 500);
    try {
      expectRuntimeUnavailable(await start(player, game.id), 'runtime_unavailable');
    } finally {
      sim.failNextRequests(0);
    }
    expect(await sessionRowsOf(t, player.id)).toEqual([
      expect.objectContaining({ status: 'failed', end_reason: 'start_failed' }),
    ]);
    expect(runtimeSessionsOf(player.id)).toEqual([]);
  });

  it.each(['degraded', 'lockdown'] as const)(
    'at %s the maintenance gate refuses with 503 panic_mode before auth; no row, nothing asked of the runtime',
    async (level) => {
      const player = await createUser(t.db);
      const game = await seedGame(t);
      await setPanicLevel(t, operator, level);
      try {
        sim.clearRequestLog();
        const before = sim.sessions().length;
        const response = await start(player, game.id);
        expect(response.statusCode, response.body).toBe(503);
        expect(response.json()).toEqual({ error: 'panic_mode', level, reason: `game sessions test: ${level}` });
        expect(response.headers['retry-after']).toBe('30');
        const anonymous = await t.request({ method: 'POST', url: '/v1/me/sessions', payload: { game_id: game.id } });
        expect(anonymous.statusCode).toBe(503);
        expect(await sessionRowsOf(t, player.id)).toEqual([]);
        expect(sim.requestLog()).toEqual([]);
        expect(sim.sessions()).toHaveLength(before);
      } finally {
        await setPanicLevel(t, operator, 'off');
      }
      expect((await start(player, game.id)).statusCode).toBe(201);
    },
  );

  it('stores no member token and shows the runtime API key in no response body or log line', async () => {
    const tokens = sim.sessions().map((session) => session.member_token);
    expect(tokens.length).toBeGreaterThan(10);
    const stored = await storedText(t);
    const logged = captured.text();
    expect(logged.length).toBeGreaterThan(0);
    for (const token of tokens) {
      expect(stored).not.toContain(token);
      expect(logged).not.toContain(token);
    }
    expect(sim.apiKey.length).toBeGreaterThan(0);
    expect(logged).not.toContain(sim.apiKey);
    for (const body of bodies) expect(body).not.toContain(sim.apiKey);
  });
});

describe('start and stop with the runtime unreachable', () => {
  let t: App;
  const captured = captureLog();
  const apiKey = `rk-unreachable-${randomUUID()}`;

  beforeAll(async () => {
    t = await startTestApp({
      log: captured.log,
      config: { runtimeUrl: `http://127.0.0.1:${await closedPort()}`, runtimeApiKey: apiKey },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a start is 503 runtime_unavailable with Retry-After; the row is failed start_failed', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const response = await startSession(t, player, game.id);
    expectRuntimeUnavailable(response, 'runtime_unavailable');
    expect(response.body).not.toContain(apiKey);
    expect(await sessionRowsOf(t, player.id)).toEqual([
      expect.objectContaining({ status: 'failed', end_reason: 'start_failed', node_id: null, play_url: null }),
    ]);
  });

  it('a start over a live row the runtime cannot be asked about is 503; the live row stays', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const live = randomUUID();
    await t.db
      .insertInto('game_sessions')
      .values({
        id: live,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        status: 'active',
        play_url: 'http://node.test/play',
      })
      .execute();
    const response = await startSession(t, player, game.id);
    expectRuntimeUnavailable(response, 'runtime_unavailable');
    expect((await sessionRowsOf(t, player.id)).map((row) => [row.id, row.status])).toEqual([[live, 'active']]);
  });

  it('a stop is 503 unavailable; the session stays active', async () => {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const live = randomUUID();
    await t.db
      .insertInto('game_sessions')
      .values({
        id: live,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        status: 'active',
        play_url: 'http://node.test/play',
      })
      .execute();
    const response = await stopMine(t, player);
    expectRuntimeUnavailable(response, 'runtime_unavailable');
    expect(response.body).not.toContain(apiKey);
    expect(await sessionRow(t, live)).toMatchObject({ status: 'active', end_reason: null, ended_at: null });
  });

  it('the API key reaches no log line', () => {
    expect(captured.lines().length).toBeGreaterThan(0);
    expect(captured.text()).not.toContain(apiKey);
  });
});
