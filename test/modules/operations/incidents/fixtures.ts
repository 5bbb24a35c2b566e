import { sql } from 'kysely';
import { expect } from 'vitest';
import type { RuntimeSimulator } from '../../../../src/runtime-sim/simulator.js';
import type { startTestApp, TestUser } from '../../../helpers/app.js';

/** Helpers shared by the incident test files: rules through the real route, a clean panic row, clocks. */

export type App = Awaited<ReturnType<typeof startTestApp>>;

export interface TestRule {
  key: string;
  signal: 'http_5xx' | 'database_errors' | 'database_latency' | 'runtime' | 'payments' | 'mail';
  threshold: number;
  window_seconds: number;
  min_requests: number;
  level: 'degraded' | 'lockdown';
  auto_clear: boolean;
  hold_seconds: number;
  cooldown_seconds: number;
  enabled?: boolean;
}

/** A runtime rule tests tune: half the calls failing over 30 s, at least 3 calls, degraded. */
export const runtimeRule = (overrides: Partial<TestRule> = {}): TestRule => ({
  key: 'runtime-test',
  signal: 'runtime',
  threshold: 0.5,
  window_seconds: 30,
  min_requests: 3,
  level: 'degraded',
  auto_clear: true,
  hold_seconds: 60,
  cooldown_seconds: 60,
  ...overrides,
});

export async function useRules(t: App, staff: TestUser, rules: TestRule[]): Promise<void> {
  const response = await t.request({
    method: 'PUT',
    url: '/v1/admin/ops/incident-rules',
    token: staff.token,
    payload: { rules },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Level off (as migrated), no rules, no samples, no history, no counts pending on these instances. */
export async function resetIncidents(...apps: App[]): Promise<void> {
  const [t] = apps;
  await t!.db
    .updateTable('ops_panic_state')
    .set({ level: 'off', reason: null, set_by: null, set_at: null, auto: false })
    .execute();
  await t!.db.deleteFrom('incident_signal_samples').execute();
  await t!.db.deleteFrom('ops_panic_changes').execute();
  // Each test puts its own rules, with no state left from another test.
  await t!.db.deleteFrom('incident_rules').execute();
  for (const app of apps) {
    app.kernel.signals.take();
    await app.kernel.panic.refresh();
    app.events.length = 0;
  }
}

/** `count` probes of the database and the runtime on this instance. */
export async function probe(t: App, count = 1): Promise<void> {
  for (let i = 0; i < count; i += 1) await t.kernel.incidents.probe();
}

export function simulatorOf(t: App): RuntimeSimulator {
  const simulator = t.kernel.runtimeSimulator;
  if (simulator === undefined) throw new Error('this app runs no in-process runtime simulator');
  return simulator;
}

export const seconds = (base: Date, s: number) => new Date(base.getTime() + s * 1_000);

export function panicRow(t: App) {
  return t.db.selectFrom('ops_panic_state').select(['level', 'reason', 'set_by', 'auto']).executeTakeFirstOrThrow();
}

export function changeRows(t: App) {
  return t.db.selectFrom('ops_panic_changes').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function ruleRow(t: App, key: string) {
  return t.db.selectFrom('incident_rules').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
}

export function monitorAuditRows(t: App) {
  return t.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id', 'reason', 'summary'])
    .where('action', '=', 'ops.panic.set')
    .where('actor_id', 'is', null)
    .orderBy('created_at')
    .execute();
}

/** A published store game, straight in the database (setup, not under test). */
export async function seedGame(t: App) {
  const slug = `incident-game-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  return t.db
    .insertInto('store_games')
    .values({
      slug,
      title: slug,
      status: 'published',
      summary: null,
      description: null,
      release_date: null,
      website: null,
      legal_notice: null,
      content_description: null,
      metadata: '{}',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** A real database error of the kind an overloaded server answers with (SQLSTATE 53300). */
export const failingQuery = sql`DO $$ BEGIN RAISE EXCEPTION 'sorry, too many clients already' USING ERRCODE = 'too_many_connections'; END $$`;
