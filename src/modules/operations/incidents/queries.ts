import { sql, type Insertable, type Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import type { PanicLevel, Tables } from '../../../db/tables.js';
import type { Signal, SignalCount } from '../../../kernel/areas/signals.js';
import { readPage } from '../../../kernel/pagination.js';
import { asRead } from '../../../lib/split-pool.js';
import type { IncidentRuleRow, IncidentRulesTable } from './tables.js';
import type { ChangesQuery } from './schemas.js';

/** Samples older than this behind the longest window are deleted by the evaluating instance. */
const SAMPLE_RETENTION_MS = 3_600_000;

/**
 * The database probe: milliseconds of one small read, timed on a session already held, so a wait
 * for a free session (this instance's own load) is not read as the database being slow.
 */
export async function timeProbeRead(db: Kysely<Tables>): Promise<number> {
  return db.connection().execute(async (session) => {
    await asRead(sql`SELECT 1`).execute(session);
    const started = performance.now();
    await session.selectFrom('panic_level').select('level').executeTakeFirst();
    return performance.now() - started;
  });
}

export async function insertSamples(
  db: Kysely<Tables>,
  instanceId: string,
  at: Date,
  counts: Map<Signal, SignalCount>,
): Promise<void> {
  const rows = [...counts]
    .filter(([, count]) => count.total > 0)
    .map(([signal, count]) => ({
      instance_id: instanceId,
      signal,
      recorded_at: at,
      total: count.total,
      failures: count.failures,
      value_sum: count.valueSum,
    }));
  if (rows.length > 0) await db.insertInto('incident_signal_samples').values(rows).execute();
}

export interface Measurement {
  total: number;
  failures: number;
  valueSum: number;
}

/** Every instance's samples of every signal in the window ending at `now`, summed. */
export async function measureWindow(
  db: Kysely<Tables>,
  now: Date,
  windowSeconds: number,
): Promise<Map<Signal, Measurement>> {
  const rows = await db
    .selectFrom('incident_signal_samples')
    .select([
      'signal',
      sql<number>`sum(total)::int`.as('total'),
      sql<number>`sum(failures)::int`.as('failures'),
      sql<number>`sum(value_sum)::float8`.as('value_sum'),
    ])
    .where('recorded_at', '>', new Date(now.getTime() - windowSeconds * 1_000))
    .where('recorded_at', '<=', now)
    .groupBy('signal')
    .execute();
  return new Map(
    rows.map((row) => [
      row.signal,
      { total: Number(row.total), failures: Number(row.failures), valueSum: Number(row.value_sum) },
    ]),
  );
}

export async function pruneSamples(db: Kysely<Tables>, now: Date, longestWindowSeconds: number): Promise<void> {
  const cutoff = new Date(now.getTime() - longestWindowSeconds * 1_000 - SAMPLE_RETENTION_MS);
  await db.deleteFrom('incident_signal_samples').where('recorded_at', '<', cutoff).execute();
}

/** Every column of a rule: its view shows the settings and the monitor's state. */
const RULE_COLUMNS = [
  'key',
  'signal',
  'threshold',
  'window_seconds',
  'min_requests',
  'level',
  'auto_clear',
  'hold_seconds',
  'cooldown_seconds',
  'enabled',
  'updated_at',
  'updated_by',
  'holding',
  'breached_since',
  'healthy_since',
  'last_change_at',
  'silenced_until',
  'last_evaluated_at',
  'last_value',
  'last_total',
] as const;

export function listRules(db: Kysely<Tables>): Promise<IncidentRuleRow[]> {
  return db.selectFrom('incident_rules').select(RULE_COLUMNS).orderBy('key').execute();
}

export function lockRules(trx: Kysely<Tables>): Promise<IncidentRuleRow[]> {
  return trx.selectFrom('incident_rules').selectAll().orderBy('key').forUpdate().execute();
}

/** Deletes every rule whose key is not among `keys` (all of them for none). */
export async function deleteRulesOtherThan(trx: Kysely<Tables>, keys: string[]): Promise<void> {
  let removal = trx.deleteFrom('incident_rules');
  if (keys.length > 0) removal = removal.where('key', 'not in', keys);
  await removal.execute();
}

/** Inserts the rules, or updates their settings by key; the monitor's state on a rule is kept. */
export async function upsertRuleSettings(trx: Kysely<Tables>, rules: Insertable<IncidentRulesTable>[]): Promise<void> {
  await trx
    .insertInto('incident_rules')
    .values(rules)
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        signal: eb.ref('excluded.signal'),
        threshold: eb.ref('excluded.threshold'),
        window_seconds: eb.ref('excluded.window_seconds'),
        min_requests: eb.ref('excluded.min_requests'),
        level: eb.ref('excluded.level'),
        auto_clear: eb.ref('excluded.auto_clear'),
        hold_seconds: eb.ref('excluded.hold_seconds'),
        cooldown_seconds: eb.ref('excluded.cooldown_seconds'),
        enabled: eb.ref('excluded.enabled'),
        updated_at: eb.ref('excluded.updated_at'),
        updated_by: eb.ref('excluded.updated_by'),
      })),
    )
    .execute();
}

/** Stamps a level change now on this rule and on the rule holding the level. */
export async function stampLevelChange(trx: Kysely<Tables>, ruleKey: string, now: Date): Promise<void> {
  await trx
    .updateTable('incident_rules')
    .set({ last_change_at: now })
    .where((eb) => eb.or([eb('key', '=', ruleKey), eb('holding', '=', true)]))
    .execute();
}

export type RuleStateUpdate = Partial<
  Pick<
    IncidentRuleRow,
    'breached_since' | 'healthy_since' | 'last_change_at' | 'last_evaluated_at' | 'last_value' | 'last_total'
  >
>;

export async function updateRuleState(trx: Kysely<Tables>, key: string, state: RuleStateUpdate): Promise<void> {
  await trx.updateTable('incident_rules').set(state).where('key', '=', key).execute();
}

/** Marks `rule` as holding the level (null: none does, a person set it or it is off). */
export async function setHoldingRule(trx: Kysely<Tables>, rule: string | null): Promise<void> {
  await trx
    .updateTable('incident_rules')
    .set({ holding: sql<boolean>`key IS NOT DISTINCT FROM ${rule}` })
    .where((eb) => eb.or([eb('holding', '=', true), eb('key', '=', rule ?? '')]))
    .execute();
}

/**
 * A person's `off`: every rule holding the level or breached at its last evaluation is silenced
 * for its own cool-down, so the monitor does not undo the decision on its next tick.
 */
export async function silenceFailingRules(trx: Kysely<Tables>, at: Date): Promise<string[]> {
  const rows = await trx
    .updateTable('incident_rules')
    .set({ silenced_until: sql<Date>`${at}::timestamptz + make_interval(secs => cooldown_seconds)` })
    .where((eb) => eb.or([eb('holding', '=', true), eb('breached_since', 'is not', null)]))
    .returning('key')
    .execute();
  return rows.map((row) => row.key).sort();
}

export interface NewPanicChange {
  at: Date;
  level: PanicLevel;
  previousLevel: PanicLevel;
  auto: boolean;
  reason: string | null;
  setBy: string | null;
  ruleKey: string | null;
  measurement: Record<string, unknown> | null;
  signals: Record<string, unknown> | null;
}

export async function insertPanicChange(trx: Kysely<Tables>, change: NewPanicChange): Promise<void> {
  await trx
    .insertInto('ops_panic_changes')
    .values({
      created_at: change.at,
      level: change.level,
      previous_level: change.previousLevel,
      auto: change.auto,
      reason: change.reason,
      set_by: change.setBy,
      rule_key: change.ruleKey,
      measurement: change.measurement === null ? null : JSON.stringify(change.measurement),
      signals: change.signals === null ? null : JSON.stringify(change.signals),
    })
    .execute();
}

export function listPanicChanges(db: Kysely<Tables>, query: ChangesQuery) {
  const { direction } = query.sort;
  return readPage(db.selectFrom('ops_panic_changes'), query, (changes) =>
    changes
      .select([
        'id',
        'created_at',
        'level',
        'previous_level',
        'auto',
        'reason',
        'set_by',
        'rule_key',
        'measurement',
        'signals',
      ])
      .orderBy('created_at', direction)
      .orderBy('id', direction),
  );
}
