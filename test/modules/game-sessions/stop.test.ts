import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRuntimeUnavailable, requestIdOf, schemaError } from '../../helpers/expectations.js';
import {
  seedGame,
  sessionRow,
  sessionRowsOf,
  setPanicLevel,
  simulatorOf,
  startSession,
  stopMine,
  type App,
} from './fixtures.js';

/**
 * Stopping game sessions: the player's own stop (POST /v1/me/sessions/stop) and the staff
 * routes (GET /v1/admin/runtime/sessions/{id}, POST …/{id}/stop), checked in the response,
 * the row, the simulator and the audit log. Also: a hard-deleted user takes their history along.
 */

describe('stop game sessions', () => {
  let t: App;
  let sim: RuntimeSimulator;
  let operator: TestUser;
  let staff: TestUser;
  let reader: TestUser;

  /** A player with a running session; returns both. */
  async function playing(): Promise<{ player: TestUser; sessionId: string; gameId: number }> {
    const player = await createUser(t.db);
    const game = await seedGame(t);
    const response = await startSession(t, player, game.id);
    expect(response.statusCode, response.body).toBe(201);
    return { player, sessionId: response.json().session_id, gameId: game.id };
  }

  const staffStop = (caller: TestUser, id: string, payload?: Record<string, unknown>) =>
    t.request({
      method: 'POST',
      url: `/v1/admin/runtime/sessions/${id}/stop`,
      token: caller.token,
      ...(payload === undefined ? {} : { payload }),
    });
  const auditCount = async () =>
    (
      await t.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('action', '=', 'runtime.session_stop')
        .executeTakeFirstOrThrow()
    ).n;

  beforeAll(async () => {
    t = await startTestApp();
    sim = simulatorOf(t);
    operator = await createUser(t.db, ['ops.panic']);
    staff = await createUser(t.db, ['runtime.read', 'runtime.write']);
    reader = await createUser(t.db, ['runtime.read']);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('POST /v1/me/sessions/stop', () => {
    it("204: stops the caller's session on the runtime and records it ended (user_stopped, by the player)", async () => {
      const { player, sessionId } = await playing();
      const other = await playing();
      const response = await stopMine(t, player);
      expect(response.statusCode, response.body).toBe(204);
      expect(response.body).toBe('');
      expect(sim.session(sessionId)!.status).toBe('stopped');
      expect(await sessionRow(t, sessionId)).toMatchObject({
        status: 'ended',
        end_reason: 'user_stopped',
        stopped_by: player.id,
        ended_at: expect.any(Date),
      });
      // Nobody else's session is touched.
      expect(sim.session(other.sessionId)!.status).toBe('running');
      expect(await sessionRow(t, other.sessionId)).toMatchObject({ status: 'active' });
      // The player can start again at once.
      expect((await startSession(t, player, (await seedGame(t)).id)).statusCode).toBe(201);
    });

    it('404 not_found when the caller has no live session (none at all, or only ended ones)', async () => {
      const nobody = await createUser(t.db);
      const none = await stopMine(t, nobody);
      expect(none.statusCode).toBe(404);
      expect(none.json()).toMatchObject({ error: 'not_found' });

      const { player, sessionId } = await playing();
      expect((await stopMine(t, player)).statusCode).toBe(204);
      const again = await stopMine(t, player);
      expect(again.statusCode).toBe(404);
      expect(await sessionRow(t, sessionId)).toMatchObject({ status: 'ended', end_reason: 'user_stopped' });
    });

    it('a session the runtime no longer knows is still closed (204, user_stopped)', async () => {
      const player = await createUser(t.db);
      const game = await seedGame(t);
      const id = randomUUID();
      await t.db
        .insertInto('game_sessions')
        .values({
          id,
          user_id: player.id,
          game_id: game.id,
          game_slug: game.slug,
          game_title: game.title,
          status: 'active',
        })
        .execute();
      expect((await stopMine(t, player)).statusCode).toBe(204);
      expect(await sessionRow(t, id)).toMatchObject({ status: 'ended', end_reason: 'user_stopped' });
    });

    it('503 unavailable when the runtime fails; the session stays active and running', async () => {
      const { player, sessionId } = await playing();
      sim.failNextRequests(10, 503);
      try {
        expectRuntimeUnavailable(await stopMine(t, player), 'runtime_unavailable');
      } finally {
        sim.failNextRequests(0);
      }
      expect(await sessionRow(t, sessionId)).toMatchObject({ status: 'active', end_reason: null, ended_at: null });
      expect(sim.session(sessionId)!.status).toBe('running');
    });

    it('is allowed in lockdown: 204 and the session ends', async () => {
      const { player, sessionId } = await playing();
      await setPanicLevel(t, operator, 'lockdown');
      try {
        const response = await stopMine(t, player);
        expect(response.statusCode, response.body).toBe(204);
      } finally {
        await setPanicLevel(t, operator, 'off');
      }
      expect(sim.session(sessionId)!.status).toBe('stopped');
      expect(await sessionRow(t, sessionId)).toMatchObject({ status: 'ended', end_reason: 'user_stopped' });
    });
  });

  describe('GET /v1/admin/runtime/sessions/{id}', () => {
    it('200 with the record; 404 unknown; 400 malformed id; 403 without runtime.read', async () => {
      const { player, sessionId, gameId } = await playing();
      const row = (await sessionRow(t, sessionId))!;
      const response = await t.request({
        method: 'GET',
        url: `/v1/admin/runtime/sessions/${sessionId}`,
        token: reader.token,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        id: sessionId,
        user_id: player.id,
        game_id: gameId,
        game_slug: row.game_slug,
        game_title: row.game_title,
        pool_id: row.pool_id,
        node_id: row.node_id,
        status: 'active',
        end_reason: null,
        stopped_by: null,
        play_url: row.play_url,
        created_at: row.created_at.toISOString(),
        started_at: row.started_at!.toISOString(),
        ended_at: null,
      });
      expect(response.body).not.toContain(sim.session(sessionId)!.member_token);

      const unknown = await t.request({
        method: 'GET',
        url: `/v1/admin/runtime/sessions/${randomUUID()}`,
        token: reader.token,
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
      const malformed = await t.request({
        method: 'GET',
        url: '/v1/admin/runtime/sessions/not-a-uuid',
        token: reader.token,
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual(schemaError({ path: ['id'] }));
      const forbidden = await t.request({
        method: 'GET',
        url: `/v1/admin/runtime/sessions/${sessionId}`,
        token: player.token,
      });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual({ error: 'forbidden', details: { perm: 'runtime.read' } });
    });
  });

  describe('POST /v1/admin/runtime/sessions/{id}/stop', () => {
    it('200 with the updated record; the runtime session stops; audited runtime.session_stop with the reason', async () => {
      const { player, sessionId } = await playing();
      const response = await staffStop(staff, sessionId, { reason: 'Abusive behaviour' });
      expect(response.statusCode, response.body).toBe(200);
      const row = (await sessionRow(t, sessionId))!;
      expect(row).toMatchObject({
        status: 'ended',
        end_reason: 'staff_stopped',
        stopped_by: staff.id,
        ended_at: expect.any(Date),
      });
      expect(response.json()).toEqual({
        id: sessionId,
        user_id: player.id,
        game_id: row.game_id,
        game_slug: row.game_slug,
        game_title: row.game_title,
        pool_id: row.pool_id,
        node_id: row.node_id,
        status: 'ended',
        end_reason: 'staff_stopped',
        stopped_by: staff.id,
        play_url: row.play_url,
        created_at: row.created_at.toISOString(),
        started_at: row.started_at!.toISOString(),
        ended_at: row.ended_at!.toISOString(),
      });
      expect(sim.session(sessionId)!.status).toBe('stopped');

      const audits = await auditOf(t.db, requestIdOf(response));
      expect(audits).toEqual([
        expect.objectContaining({
          actor_id: staff.id,
          action: 'runtime.session_stop',
          target_type: 'game_session',
          target_id: sessionId,
          reason: 'Abusive behaviour',
          summary: {
            before: { status: 'active' },
            after: { status: 'ended', end_reason: 'staff_stopped' },
            user_id: player.id,
            game_id: row.game_id,
            pool_id: row.pool_id,
            node_id: row.node_id,
          },
        }),
      ]);
      expect(JSON.stringify(audits)).not.toContain(sim.session(sessionId)!.member_token);
    });

    it('the body is optional: no body stops it too (audit reason null)', async () => {
      const { sessionId } = await playing();
      const response = await staffStop(staff, sessionId);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ status: 'ended', end_reason: 'staff_stopped' });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        expect.objectContaining({ action: 'runtime.session_stop', reason: null }),
      ]);
    });

    it('a starting session the runtime never created is stopped too', async () => {
      const player = await createUser(t.db);
      const game = await seedGame(t);
      const id = randomUUID();
      await t.db
        .insertInto('game_sessions')
        .values({
          id,
          user_id: player.id,
          game_id: game.id,
          game_slug: game.slug,
          game_title: game.title,
          status: 'starting',
        })
        .execute();
      const response = await staffStop(staff, id);
      expect(response.statusCode, response.body).toBe(200);
      expect(await sessionRow(t, id)).toMatchObject({ status: 'ended', end_reason: 'staff_stopped' });
    });

    it('422 invalid_state for a session its player ended; nothing asked of the runtime, nothing audited', async () => {
      const { player, sessionId } = await playing();
      expect((await stopMine(t, player)).statusCode).toBe(204);
      const audits = await auditCount();
      sim.clearRequestLog();
      const response = await staffStop(staff, sessionId, { reason: 'too late' });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toEqual({
        error: 'invalid_state',
        details: { reason: expect.any(String), status: 'ended' },
      });
      expect(await auditCount()).toBe(audits);
      expect(sim.requestLog()).toEqual([]);
      expect(await sessionRow(t, sessionId)).toMatchObject({ end_reason: 'user_stopped' });
    });

    it('422 invalid_state for a failed start and for a second staff stop', async () => {
      const player = await createUser(t.db);
      const game = await seedGame(t);
      const failed = randomUUID();
      await t.db
        .insertInto('game_sessions')
        .values({
          id: failed,
          user_id: player.id,
          game_id: game.id,
          game_slug: game.slug,
          game_title: game.title,
          status: 'failed',
          end_reason: 'start_failed',
          ended_at: new Date(),
        })
        .execute();
      const refused = await staffStop(staff, failed);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({
        error: 'invalid_state',
        details: { reason: expect.any(String), status: 'failed' },
      });

      const { sessionId } = await playing();
      expect((await staffStop(staff, sessionId)).statusCode).toBe(200);
      const audits = await auditCount();
      const second = await staffStop(staff, sessionId);
      expect(second.statusCode).toBe(422);
      expect(second.json().details.status).toBe('ended');
      expect(await auditCount()).toBe(audits);
    });

    it('404 unknown; 400 malformed id or body; 403 naming runtime.write for a reader', async () => {
      const audits = await auditCount();
      const unknown = await staffStop(staff, randomUUID());
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });

      const { sessionId } = await playing();
      const tooLong = await staffStop(staff, sessionId, { reason: 'x'.repeat(501) });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.json()).toEqual(schemaError({ code: 'too_big', path: ['reason'] }));
      const extra = await staffStop(staff, sessionId, { reason: 'ok', force: true });
      expect(extra.statusCode).toBe(400);
      expect(extra.json()).toEqual(schemaError({ code: 'unrecognized_keys' }));

      const forbidden = await staffStop(reader, sessionId, { reason: 'no' });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual({ error: 'forbidden', details: { perm: 'runtime.write' } });
      expect(await sessionRow(t, sessionId)).toMatchObject({ status: 'active' });
      expect(sim.session(sessionId)!.status).toBe('running');
      expect(await auditCount()).toBe(audits);
    });

    it('503 unavailable when the runtime fails; the session stays active, nothing audited', async () => {
      const { sessionId } = await playing();
      const audits = await auditCount();
      sim.failNextRequests(10, 502);
      let response: Awaited<ReturnType<typeof staffStop>>;
      try {
        response = await staffStop(staff, sessionId, { reason: 'runtime down' });
      } finally {
        sim.failNextRequests(0);
      }
      expectRuntimeUnavailable(response, 'runtime_unavailable');
      expect(await sessionRow(t, sessionId)).toMatchObject({ status: 'active', end_reason: null });
      expect(sim.session(sessionId)!.status).toBe('running');
      expect(await auditCount()).toBe(audits);
    });
  });

  it('hard-deleting a user removes their game sessions (foreign key cascade); a deleted game leaves the snapshot', async () => {
    const { player, sessionId, gameId } = await playing();
    expect((await stopMine(t, player)).statusCode).toBe(204);
    await t.db.deleteFrom('store_games').where('id', '=', gameId).execute();
    expect(await sessionRow(t, sessionId)).toMatchObject({
      game_id: null,
      game_slug: expect.any(String),
      game_title: expect.any(String),
    });

    expect((await startSession(t, player, (await seedGame(t)).id)).statusCode).toBe(201);
    expect(await sessionRowsOf(t, player.id)).toHaveLength(2);
    await t.db.deleteFrom('users').where('id', '=', player.id).execute();
    expect(await sessionRowsOf(t, player.id)).toEqual([]);
  });
});
