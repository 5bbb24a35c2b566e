import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../../db/column-types.js';
import type { PanicLevel } from '../../../db/tables.js';
import type { Signal } from '../../../kernel/areas/signals.js';

/** Table types of incident monitoring (migration 0028), merged into Kysely's `Tables`. */

/** Signals measured as a mean of milliseconds (the database probe's); the others as failures / total. */
export const LATENCY_SIGNALS: ReadonlySet<Signal> = new Set(['database_latency']);

export const INCIDENT_LEVELS = ['degraded', 'lockdown'] as const;
export type IncidentLevel = (typeof INCIDENT_LEVELS)[number];

export interface IncidentSignalSamplesTable {
  id: Generated<string>;
  instance_id: string;
  signal: Signal;
  recorded_at: Timestamp;
  total: number;
  failures: number;
  value_sum: ColumnType<number, number | undefined, number>;
}

export interface IncidentRulesTable {
  key: string;
  signal: Signal;
  threshold: number;
  window_seconds: number;
  min_requests: number;
  level: IncidentLevel;
  auto_clear: boolean;
  hold_seconds: number;
  cooldown_seconds: number;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  updated_at: DefaultedTimestamp;
  updated_by: string | null;
  /** This rule set the current automatic level (at most one rule holds it). */
  holding: ColumnType<boolean, boolean | undefined, boolean>;
  breached_since: NullableTimestamp;
  healthy_since: NullableTimestamp;
  last_change_at: NullableTimestamp;
  silenced_until: NullableTimestamp;
  last_evaluated_at: NullableTimestamp;
  last_value: number | null;
  last_total: number | null;
}
export type IncidentRuleRow = Selectable<IncidentRulesTable>;

export interface OpsPanicChangesTable {
  id: Generated<string>;
  created_at: Timestamp;
  level: PanicLevel;
  previous_level: PanicLevel;
  auto: boolean;
  reason: string | null;
  set_by: string | null;
  rule_key: string | null;
  measurement: ColumnType<unknown, string | null, string | null>;
  signals: ColumnType<unknown, string | null, string | null>;
}
export type PanicChangeRow = Selectable<OpsPanicChangesTable>;

declare module '../../../db/tables.js' {
  interface Tables {
    incident_signal_samples: IncidentSignalSamplesTable;
    incident_rules: IncidentRulesTable;
    ops_panic_changes: OpsPanicChangesTable;
  }
}
