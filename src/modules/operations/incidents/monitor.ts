import type { Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RuntimeClient } from '../../../adapters/runtime/index.js';
import { databaseFailureOf } from '../../../db/failures.js';
import type { Tables } from '../../../db/tables.js';
import type { AuditActor } from '../../../kernel/audit.js';
import type { PanicMonitor, PanicState } from '../../../kernel/maintenance.js';
import { changePanicLevel, lockPanicStateUnlessBusy } from '../maintenance/index.js';
import { decide, measurementOf, nextRuleState, reasonOf, readRule, signalValue, type Decision } from './evaluation.js';
import type { AuditedWrite, Writes } from '../../../kernel/write.js';
import {
  insertSamples,
  lockRules,
  measureWindow,
  pruneSamples,
  stampLevelChange,
  timeProbeRead,
  updateRuleState,
  type Measurement,
} from './queries.js';
import type { Signal, SignalRecorder } from '../../../kernel/areas/signals.js';
import type { IncidentRuleRow } from './tables.js';

/** How the monitor signs what it sets (`set_by`); people are named by their user id. */
export const MONITOR_NAME = 'incident-monitor';
const MONITOR_ACTOR: AuditActor = { userId: null, requestId: null, ip: null, userAgent: null };

interface MonitorLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface IncidentMonitorOptions {
  db: Kysely<Tables>;
  write: Writes;
  panic: PanicMonitor;
  signals: SignalRecorder;
  /** The runtime client, once the kernel has made it (undefined before). */
  runtime: () => RuntimeClient | undefined;
  log: MonitorLog;
  /** Probe, flush and evaluate this often; 0: never on a timer (tests call `evaluate(now)`). */
  intervalMs: number;
  instanceId?: string;
  clock?: () => Date;
}

export interface Evaluation {
  /** False when another instance was evaluating (it holds the panic row): this one left it alone. */
  evaluated: boolean;
  /** The new level when this evaluation changed it. */
  changed: PanicState | null;
}

/**
 * Incident monitoring, one per instance. Every tick it probes the database and the runtime,
 * flushes this instance's counters, then evaluates the rules over every instance's samples under
 * the panic row's lock (SKIP LOCKED: an instance finding it taken skips the round), so exactly
 * one instance acts on a trip and the others see the new level through the change bus.
 */
export class IncidentMonitor {
  readonly instanceId: string;
  readonly #options: IncidentMonitorOptions;
  readonly #clock: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;

  constructor(options: IncidentMonitorOptions) {
    this.#options = options;
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.#options.intervalMs <= 0) return;
    this.#timer = setInterval(() => this.#run(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#tick;
  }

  /** Measures the database (a read of the panic row, timed) and the runtime's health, as signals. */
  async probe(): Promise<void> {
    const { db, signals, runtime } = this.#options;
    try {
      const millis = await timeProbeRead(db);
      signals.record('database_errors', false);
      signals.record('database_latency', false, millis);
    } catch (error) {
      // A probe that found every session busy learnt nothing of the database: this instance's load.
      if (databaseFailureOf(error) !== 'busy') signals.record('database_errors', true);
    }
    // The tapped client records the outcome itself.
    await runtime()
      ?.health()
      .catch(() => undefined);
  }

  /** Writes this instance's counters as samples stamped `now`; kept for the next flush if that fails. */
  async flush(now: Date = this.#clock()): Promise<void> {
    const counts = this.#options.signals.take();
    try {
      await insertSamples(this.#options.db, this.instanceId, now, counts);
    } catch (error) {
      this.#options.signals.restore(counts);
      throw error;
    }
  }

  /** Flushes, then evaluates every rule at `now` and changes the level when one says so. */
  async evaluate(now: Date = this.#clock()): Promise<Evaluation> {
    await this.flush(now);
    const result = await this.#options.write(MONITOR_ACTOR, async (w): Promise<Evaluation> => {
      const { trx } = w;
      const panic = await lockPanicStateUnlessBusy(trx);
      if (panic === undefined) return { evaluated: false, changed: null };
      const rules = await lockRules(trx);
      const measured = await measureRules(trx, now, rules);
      const readings = rules.map((rule) => readRule(rule, measured.get(rule.window_seconds)?.get(rule.signal)));
      for (const reading of readings) await updateRuleState(trx, reading.rule.key, nextRuleState(reading, now));
      const decision = decide(now, panic, readings);
      const changed =
        decision === null
          ? null
          : await this.#apply(w, now, decision, measured.get(decision.reading.rule.window_seconds));
      await pruneSamples(trx, now, Math.max(0, ...rules.map((rule) => rule.window_seconds)));
      return { evaluated: true, changed };
    });
    if (result.changed !== null) await this.#options.panic.refresh();
    return result;
  }

  async #apply(
    w: AuditedWrite,
    now: Date,
    decision: Decision,
    window: Map<Signal, Measurement> | undefined,
  ): Promise<PanicState> {
    const { rule } = decision.reading;
    // One automatic change per rule per cool-down: the acting rule's, and the one it takes over from.
    await stampLevelChange(w.trx, rule.key, now);
    const changed = await changePanicLevel(w, {
      level: decision.level,
      reason: reasonOf(decision),
      setBy: MONITOR_NAME,
      at: now,
      cause: { rule: rule.key, measurement: measurementOf(decision.reading), signals: snapshotOf(window) },
    });
    this.#options.log.warn(
      { rule: rule.key, level: decision.level, measurement: measurementOf(decision.reading) },
      'incident monitor changed the maintenance level',
    );
    return changed;
  }

  /** One tick at a time: a slow database delays the next tick instead of piling them up. */
  #run(): void {
    if (this.#tick !== undefined) return;
    this.#tick = this.probe()
      .then(() => this.evaluate())
      .then(() => undefined)
      .catch((error: unknown) => this.#options.log.error({ err: error }, 'incident monitor evaluation failed'))
      .finally(() => (this.#tick = undefined));
  }
}

/** One measurement per distinct window among the rules. */
async function measureRules(trx: Kysely<Tables>, now: Date, rules: IncidentRuleRow[]) {
  const windows = [...new Set(rules.map((rule) => rule.window_seconds))];
  const measured = new Map<number, Map<Signal, Measurement>>();
  for (const window of windows) measured.set(window, await measureWindow(trx, now, window));
  return measured;
}

/** Every signal seen in the window, as staff read it in the incident history. */
function snapshotOf(window: Map<Signal, Measurement> | undefined): Record<string, unknown> {
  const snapshot: Record<string, unknown> = {};
  for (const [signal, measured] of window ?? [])
    snapshot[signal] = { value: signalValue(signal, measured), total: measured.total, failures: measured.failures };
  return snapshot;
}
