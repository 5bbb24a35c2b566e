import { SIGNALS, type Signal } from './tables.js';

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
      this.#pending.set(signal, { total: current.total + count.total, failures: current.failures + count.failures, valueSum: current.valueSum + count.valueSum });
    }
  }

  /** A response of this service: 5xx are its own failures, except 502/503, which name an outside service or maintenance (watched by their own signals). */
  recordResponse(status: number): void {
    this.record('http_5xx', status >= 500 && status !== 502 && status !== 503);
  }

  /** An error a request ended with: a failing database (not a bad query) counts against it. */
  recordRequestError(error: unknown): void {
    if (isDatabaseFailure(error)) this.record('database_errors', true);
  }
}

export const isSignal = (value: string): value is Signal => (SIGNALS as readonly string[]).includes(value);

/**
 * SQLSTATE classes of a database that is failing rather than a query that is wrong: connection
 * exceptions (08), insufficient resources (53), operator intervention such as a statement timeout
 * or shutdown (57), system errors (58) and internal errors (XX).
 */
const FAILING_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
/** The pool's and socket's ways of saying the database did not answer. */
const FAILING_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const FAILING_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Client has encountered a connection error/i];

export function isDatabaseFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code) && FAILING_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
    if (FAILING_NETWORK_CODES.has(code)) return true;
  }
  return typeof message === 'string' && FAILING_MESSAGES.some((pattern) => pattern.test(message));
}
