import type { PanicLevel } from '../../../db/tables.js';
import type { Signal } from '../../../kernel/areas/signals.js';
import type { Measurement } from './queries.js';
import { LATENCY_SIGNALS, type IncidentLevel, type IncidentRuleRow } from './tables.js';

/**
 * The monitor's decision, as pure functions of the clock, the level, the rules and what was
 * measured: no database here, so every rule of the state machine reads in one place.
 */

const RANK: Record<PanicLevel, number> = { off: 0, degraded: 1, lockdown: 2 };

export interface RuleReading {
  rule: IncidentRuleRow;
  signal: Signal;
  value: number;
  total: number;
  failures: number;
  breached: boolean;
}

export function signalValue(signal: Signal, measured: Measurement | undefined): number {
  if (measured === undefined || measured.total === 0) return 0;
  return LATENCY_SIGNALS.has(signal) ? measured.valueSum / measured.total : measured.failures / measured.total;
}

/** A rule trips when enabled, with at least `min_requests` observations, at or past its threshold. */
export function readRule(rule: IncidentRuleRow, measured: Measurement | undefined): RuleReading {
  const total = measured?.total ?? 0;
  const value = signalValue(rule.signal, measured);
  const breached = rule.enabled && total >= rule.min_requests && value >= rule.threshold;
  return { rule, signal: rule.signal, value, total, failures: measured?.failures ?? 0, breached };
}

/** The rule's state after this reading: since when it has been breached, or healthy. */
export function nextRuleState(reading: RuleReading, now: Date) {
  const { rule, breached } = reading;
  return {
    breached_since: breached ? (rule.breached_since ?? now) : null,
    healthy_since: breached ? null : (rule.healthy_since ?? now),
    last_evaluated_at: now,
    last_value: reading.value,
    last_total: reading.total,
  };
}

const secondsSince = (since: Date | null, now: Date) =>
  since === null ? Infinity : (now.getTime() - since.getTime()) / 1_000;

/** At most one automatic change per rule per cool-down, and none while a person's `off` silences it. */
function mayChange(rule: IncidentRuleRow, now: Date): boolean {
  const silenced = rule.silenced_until !== null && rule.silenced_until.getTime() > now.getTime();
  return !silenced && secondsSince(rule.last_change_at, now) >= rule.cooldown_seconds;
}

export type Decision =
  | { kind: 'trip'; reading: RuleReading; level: IncidentLevel }
  | { kind: 'clear'; reading: RuleReading; level: 'off' };

/**
 * What to change now, if anything:
 * - a level a person set (`auto` false, not off) is never touched;
 * - from `off`, the highest-level breached rule that may change trips;
 * - over an automatic level, a breached rule of a higher level takes over; the holding rule clears
 *   (or hands over to a breached rule of a level no higher) once it has been healthy for its hold
 *   time, if it may clear itself. A holder removed or disabled by staff leaves the level to a person.
 */
export function decide(
  now: Date,
  panic: { level: PanicLevel; auto: boolean },
  readings: RuleReading[],
): Decision | null {
  if (panic.level !== 'off' && !panic.auto) return null;
  const holder = panic.level === 'off' ? undefined : readings.find((r) => r.rule.holding);
  const candidates = readings
    .filter((r) => r.breached && r !== holder && mayChange(r.rule, now))
    .sort((a, b) => RANK[b.rule.level] - RANK[a.rule.level] || a.rule.key.localeCompare(b.rule.key));
  const top = candidates[0];
  if (top !== undefined && RANK[top.rule.level] > RANK[panic.level])
    return { kind: 'trip', reading: top, level: top.rule.level };
  if (
    holder === undefined ||
    !holder.rule.enabled ||
    !holder.rule.auto_clear ||
    holder.breached ||
    !mayChange(holder.rule, now)
  )
    return null;
  const healthyFor = secondsSince(nextRuleState(holder, now).healthy_since, now);
  if (healthyFor < holder.rule.hold_seconds) return null;
  if (top !== undefined) return { kind: 'trip', reading: top, level: top.rule.level };
  return { kind: 'clear', reading: holder, level: 'off' };
}

function describe(reading: RuleReading): string {
  const { rule, signal, value, total, failures } = reading;
  if (LATENCY_SIGNALS.has(signal))
    return `${signal} mean ${Math.round(value)} ms over ${rule.window_seconds} s (${total} probes)`;
  return `${signal} failure ratio ${value.toFixed(2)} (${failures} of ${total}) over ${rule.window_seconds} s`;
}

export function reasonOf(decision: Decision): string {
  const { rule } = decision.reading;
  const unit = LATENCY_SIGNALS.has(rule.signal) ? ' ms' : '';
  if (decision.kind === 'trip')
    return `Incident rule ${rule.key}: ${describe(decision.reading)}, at or above ${rule.threshold}${unit}`;
  return `Incident rule ${rule.key} cleared: ${describe(decision.reading)}, healthy for at least \
${rule.hold_seconds} s`;
}

export function measurementOf(reading: RuleReading): Record<string, unknown> {
  const { rule } = reading;
  return {
    signal: reading.signal,
    value: reading.value,
    threshold: rule.threshold,
    total: reading.total,
    failures: reading.failures,
    window_seconds: rule.window_seconds,
    min_requests: rule.min_requests,
  };
}
