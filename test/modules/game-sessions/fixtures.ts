import { sql } from 'kysely';
import { expect } from 'vitest';
import type { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import type { startTestApp, TestUser } from '../../helpers/app.js';

/** Helpers shared by the game-sessions test files: seeded games and plans, the simulator, stored state. */

export type App = Awaited<ReturnType<typeof startTestApp>>;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** A store game straight in the database (setup, not under test). */
export async function seedGame(t: App, status: 'draft' | 'published' | 'hidden' = 'published') {
  const slug = unique('game');
  return t.db
    .insertInto('store_games')
    .values({
      slug,
      title: `Title of ${slug}`,
      status,
      summary: null,
      description: null,
      release_date: null,
      website: null,
      legal_notice: null,
      content_description: null,
      metadata: '{}',
    })
    .returning(['id', 'slug', 'title'])
    .executeTakeFirstOrThrow();
}

/** Puts the user on a tier whose ruleset has these limits. */
export async function putOnPlan(
  t: App,
  userId: string,
  limits: Record<string, unknown>,
  options: { isActive?: boolean } = {},
) {
  const key = unique('plan').replace(/[^a-z0-9-]/g, '');
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({
      key: `r${key}`,
      name: `Ruleset ${key}`,
      description: null,
      limits: JSON.stringify(limits),
      is_active: options.isActive ?? true,
      updated_by: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({
      key: `t${key}`,
      name: `Tier ${key}`,
      rank: 1,
      ruleset_id: ruleset.id,
      description: null,
      updated_by: null,
    })
    .execute();
  await t.db
    .updateTable('users')
    .set({ tier: `t${key}` })
    .where('id', '=', userId)
    .execute();
}

export function simulatorOf(t: App): RuntimeSimulator {
  const simulator = t.kernel.runtimeSimulator;
  if (simulator === undefined) throw new Error('this app runs no in-process runtime simulator');
  return simulator;
}

/** Stops a session on the runtime itself, behind the service's back (as the fleet would end it). */
export async function stopOnRuntime(simulator: RuntimeSimulator, sessionId: string): Promise<void> {
  const response = await fetch(`${simulator.url}/v1/sessions/${sessionId}/stop`, {
    method: 'POST',
    headers: { authorization: `Bearer ${simulator.apiKey}` },
  });
  expect(response.status).toBe(200);
}

export function startSession(t: App, user: TestUser, gameId: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url: '/v1/me/sessions',
    token: user.token,
    payload: { game_id: gameId },
    headers,
  });
}

export function stopMine(t: App, user: TestUser) {
  return t.request({ method: 'POST', url: '/v1/me/sessions/stop', token: user.token });
}

export function sessionRow(t: App, id: string) {
  return t.db.selectFrom('game_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function sessionRowsOf(t: App, userId: string) {
  return t.db.selectFrom('game_sessions').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
}

export async function setPanicLevel(t: App, operator: TestUser, level: 'off' | 'degraded' | 'lockdown') {
  const response = await t.request({
    method: 'POST',
    url: '/v1/admin/ops/panic',
    token: operator.token,
    payload: { level, reason: `game sessions test: ${level}` },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Every row the service stores that could carry a secret, as JSON text. */
export async function storedText(t: App): Promise<string> {
  const result = await sql<{ text: string }>`SELECT concat_ws(E'\n',
      (SELECT coalesce(json_agg(g)::text, '') FROM game_sessions g),
      (SELECT coalesce(json_agg(a)::text, '') FROM audit_log a),
      (SELECT coalesce(json_agg(e)::text, '') FROM event_outbox e)) AS text`.execute(t.db);
  return result.rows[0]!.text;
}
