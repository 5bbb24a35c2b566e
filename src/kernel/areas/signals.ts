import { databaseFailureOf } from '../../db/failures.js';

/**
 * What incident monitoring watches (src/modules/operations/incidents). Ratio signals measure failures /
 * total; `database_latency` measures the mean milliseconds of the database probe.
 */
export const SIGNALS = ['http_5xx', 'database_errors', 'database_latency', 'runtime', 'payments', 'mail'] as const;
export type Signal = (typeof SIGNALS)[number];

/** What one instance saw of one signal since its last flush. */
export interface SignalCount {
  total: number;
  failures: number;
  /** Milliseconds summed, for latency signals. */
  valueSum: number;
}

/**
 * Per-instance counters, cheap enough for every request: a few additions in memory. The monitor
 * takes them every few seconds and writes one row per signal, so no request ever waits on a write.
 */
export class SignalRecorder {
  #pending = new Map<Signal, SignalCount>();

  /** One observation: `failed` counts toward the failure ratio, `value` toward a latency mean. */
  record(signal: Signal, failed: boolean, value = 0): void {
    const count = this.#pending.get(signal) ?? { total: 0, failures: 0, valueSum: 0 };
    count.total += 1;
    if (failed) count.failures += 1;
    count.valueSum += value;
    this.#pending.set(signal, count);
  }

  /** Everything counted so far, leaving the counters empty. */
  take(): Map<Signal, SignalCount> {
    const taken = this.#pending;
    this.#pending = new Map();
    return taken;
  }

  /** Puts back counts a failed flush could not write, so an outage loses nothing it saw. */
  restore(counts: Map<Signal, SignalCount>): void {
    for (const [signal, count] of counts) {
      const current = this.#pending.get(signal) ?? { total: 0, failures: 0, valueSum: 0 };
      this.#pending.set(signal, {
        total: current.total + count.total,
        failures: current.failures + count.failures,
        valueSum: current.valueSum + count.valueSum,
      });
    }
  }

  /**
   * A response of this service: 5xx are its own failures, except 502/503, which name an outside service or maintenance
   * (watched by their own signals).
   */
  recordResponse(status: number): void {
    this.record('http_5xx', status >= 500 && status !== 502 && status !== 503);
  }

  /**
   * An error a request ended with: a database call that failed on the database's side counts
   * against it. Nothing else does: not a bad query, not a client that went away mid-upload, not a
   * pool whose sessions were all busy (this instance's load, answered `overloaded`).
   */
  recordRequestError(error: unknown): void {
    if (databaseFailureOf(error) === 'failing') this.record('database_errors', true);
  }
}

export const isSignal = (value: string): value is Signal => (SIGNALS as readonly string[]).includes(value);
