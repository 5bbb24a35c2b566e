import type { RequestResult } from './soak-driver.js';
import type { MixKind } from './soak-mix.js';

/** What one kind of request got during a stretch of the run. */
class KindTally {
  requests = 0;
  errors = 0;
  /** Answers by status code, plus `socket error` and `timeout`. */
  readonly answers: Record<string, number> = {};
  readonly latencies: number[] = [];
}

/**
 * Latencies in buckets 2 % wide (10 µs to about 70 s), for the progress lines printed while the
 * load runs: their percentiles cost a walk over 800 counters, where sorting a minute's latencies
 * (up to 200,000) would stall the generator's event loop for a tenth of a second every minute and
 * send the next requests in a burst. The tables at the end sort the exact values.
 */
export class LatencyHistogram {
  static readonly #RATIO = 1.02;
  static readonly #FLOOR_MS = 0.01;
  readonly #counts = new Uint32Array(800);
  #total = 0;

  record(ms: number): void {
    const index =
      ms <= LatencyHistogram.#FLOOR_MS
        ? 0
        : Math.ceil(Math.log(ms / LatencyHistogram.#FLOOR_MS) / Math.log(LatencyHistogram.#RATIO));
    this.#counts[Math.min(index, this.#counts.length - 1)]! += 1;
    this.#total += 1;
  }

  /** The upper bound of the bucket holding the q-th quantile (at most 2 % above the exact value). */
  quantile(q: number): number | undefined {
    if (this.#total === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    for (let index = 0; index < this.#counts.length; index += 1) {
      seen += this.#counts[index]!;
      if (seen >= rank) return LatencyHistogram.#FLOOR_MS * LatencyHistogram.#RATIO ** index;
    }
    return undefined;
  }
}

/** Every answer of a stretch of the run (the maximum-rate run, the warm-up, one minute), by kind. */
export class Tally {
  readonly kinds: KindTally[];
  readonly #expected: number[];
  readonly lags: number[] = [];
  /** All kinds together, for progress lines (no sorting while the load runs). */
  readonly histogram = new LatencyHistogram();
  requests = 0;
  errors = 0;

  constructor(kinds: MixKind[]) {
    this.kinds = kinds.map(() => new KindTally());
    this.#expected = kinds.map((kind) => kind.expectedStatus);
  }

  add({ kind, answer, latencyMs, lagMs }: RequestResult): void {
    const tally = this.kinds[kind]!;
    tally.requests += 1;
    tally.answers[String(answer)] = (tally.answers[String(answer)] ?? 0) + 1;
    this.requests += 1;
    if (answer !== this.#expected[kind]) {
      tally.errors += 1;
      this.errors += 1;
    }
    tally.latencies.push(latencyMs);
    this.lags.push(lagMs);
    this.histogram.record(latencyMs);
  }

  /** Answers with the expected status. */
  expectedAnswers(): number {
    return this.kinds.reduce((sum, kind) => sum + kind.requests - kind.errors, 0);
  }
}

export interface Percentiles {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentiles (every latency is kept: at most a few hundred thousand numbers a run). */
export function percentiles(values: number[]): Percentiles | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
  return { p50Ms: rank(0.5), p99Ms: rank(0.99), maxMs: sorted[sorted.length - 1]! };
}

export interface KindSummary {
  name: string;
  expectedStatus: number;
  maxP99Ms?: number;
  requests: number;
  errors: number;
  answers: Record<string, number>;
  latency: Percentiles | null;
}

export interface StretchSummary {
  requests: number;
  errors: number;
  errorRate: number;
  answers: Record<string, number>;
  latency: Percentiles | null;
  /** How late the generator sent requests: p99 and worst (near 0 unless this process fell behind). */
  dispatchLag: { p99Ms: number; maxMs: number } | null;
  kinds: KindSummary[];
}

/** One summary over several tallies (the whole soak from its minutes). */
export function summarize(kinds: MixKind[], tallies: Tally[]): StretchSummary {
  const kindSummaries = kinds.map((kind, i): KindSummary => {
    const parts = tallies.map((tally) => tally.kinds[i]!);
    const answers: Record<string, number> = {};
    for (const part of parts)
      for (const [code, count] of Object.entries(part.answers)) answers[code] = (answers[code] ?? 0) + count;
    return {
      name: kind.name,
      expectedStatus: kind.expectedStatus,
      ...(kind.maxP99Ms === undefined ? {} : { maxP99Ms: kind.maxP99Ms }),
      requests: parts.reduce((sum, part) => sum + part.requests, 0),
      errors: parts.reduce((sum, part) => sum + part.errors, 0),
      answers,
      latency: percentiles(parts.flatMap((part) => part.latencies)),
    };
  });
  const requests = kindSummaries.reduce((sum, kind) => sum + kind.requests, 0);
  const errors = kindSummaries.reduce((sum, kind) => sum + kind.errors, 0);
  const answers: Record<string, number> = {};
  for (const kind of kindSummaries)
    for (const [code, count] of Object.entries(kind.answers)) answers[code] = (answers[code] ?? 0) + count;
  const lag = percentiles(tallies.flatMap((tally) => tally.lags));
  return {
    requests,
    errors,
    errorRate: requests === 0 ? 0 : errors / requests,
    answers,
    latency: percentiles(tallies.flatMap((tally) => tally.kinds.flatMap((kind) => kind.latencies))),
    dispatchLag: lag === null ? null : { p99Ms: lag.p99Ms, maxMs: lag.maxMs },
    kinds: kindSummaries,
  };
}

export interface RssStats {
  meanMb: number;
  minMb: number;
  maxMb: number;
  samples: number;
}

export function rssStats(samples: number[]): RssStats | null {
  if (samples.length === 0) return null;
  return {
    meanMb: samples.reduce((sum, mb) => sum + mb, 0) / samples.length,
    minMb: Math.min(...samples),
    maxMb: Math.max(...samples),
    samples: samples.length,
  };
}
