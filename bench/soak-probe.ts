import { existsSync, readFileSync } from 'node:fs';
import type { RequestPhases } from './request-phases.mjs';

/** The summed phases of a second's requests slower than the probe's threshold (20 ms) inside the service. */
export interface SlowRequests {
  count: number;
  ms: number;
  poolWaitMs: number;
  queryMs: number;
}

/** One second as the service saw it (bench/service-probe.mjs): its requests' own time, its event loop, its GC. */
export interface ServiceSecond {
  /** Wall-clock ms at the end of the second. */
  at: number;
  requests: number;
  p99Ms: number;
  maxMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  gcMs: number;
  /** The second's slowest request; absent in probe files older than the phase trace. */
  slowest?: RequestPhases | null;
  slow?: SlowRequests;
}

export function readProbe(file: string): ServiceSecond[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ServiceSecond);
}

/**
 * The service's view of each second of the fixed-rate run (second `k` ends at
 * `originEpochMs + (k + 1) s`): the probe's second ending nearest to it, within half a second;
 * null where there is none. The two clocks tick apart, so a slow second may show in a neighbour.
 */
export function alignProbe(probe: ServiceSecond[], originEpochMs: number, seconds: number): (ServiceSecond | null)[] {
  return Array.from({ length: seconds }, (_, k) => {
    const end = originEpochMs + (k + 1) * 1_000;
    let best: ServiceSecond | null = null;
    for (const second of probe) {
      if (Math.abs(second.at - end) <= 500 && (best === null || Math.abs(second.at - end) < Math.abs(best.at - end)))
        best = second;
    }
    return best;
  });
}

/**
 * `GET /v1/me 121 ms: pool wait 80, 2 queries 30 (the longest 25: SELECT …), the rest 11`: where one request's time
 * went.
 */
export function phasesText(phases: RequestPhases): string {
  const rest = Math.max(0, phases.ms - phases.poolWaitMs - phases.queryMs);
  const round = (ms: number) => Math.round(ms);
  const slowestQuery =
    phases.slowestQuery == null || phases.queries < 2
      ? ''
      : ` (the longest ${round(phases.slowestQuery.ms)}: ${phases.slowestQuery.text.slice(0, 60)})`;
  const pool =
    phases.longestPoolWait == null || round(phases.poolWaitMs) === 0 ? '' : ` (${phases.longestPoolWait.pool})`;
  return (
    `${phases.what} ${round(phases.ms)} ms: pool wait ${round(phases.poolWaitMs)}${pool}, ${phases.queries} ` +
    `${phases.queries === 1 ? 'query' : 'queries'} ${round(phases.queryMs)}${slowestQuery}, the rest ${round(rest)}`
  );
}

/** `service p99 201 ms, loop max 22 ms, GC 44 ms; slowest …`: what to print beside a slow second. */
export function probeText(second: ServiceSecond | null | undefined): string {
  if (second == null) return '';
  const slowest = second.slowest == null ? '' : `; slowest ${phasesText(second.slowest)}`;
  return ` (service p99 ${second.p99Ms} ms, event loop max ${second.loopMaxMs} ms, GC ${second.gcMs} ms${slowest})`;
}

/**
 * Where the time of the run's slow requests (inside the service) went, as shares of their summed
 * time: waiting for a pooled connection, waiting on queries, and the rest (the service's own
 * work and its waits for a core or the event loop). Null without a phase-traced probe.
 */
export function slowRequestShares(
  seconds: { service?: ServiceSecond | null }[],
): { requests: number; count: number; poolWait: number; queries: number; rest: number } | null {
  const traced = seconds
    .map((second) => second.service)
    .filter((service): service is ServiceSecond & { slow: SlowRequests } => service?.slow !== undefined);
  if (traced.length === 0) return null;
  const sum = (pick: (service: ServiceSecond & { slow: SlowRequests }) => number) =>
    traced.reduce((total, service) => total + pick(service), 0);
  const ms = sum((service) => service.slow.ms);
  const share = (part: number) => (ms === 0 ? 0 : part / ms);
  const poolWait = share(sum((service) => service.slow.poolWaitMs));
  const queries = share(sum((service) => service.slow.queryMs));
  return {
    requests: sum((service) => service.requests),
    count: sum((service) => service.slow.count),
    poolWait,
    queries,
    rest: ms === 0 ? 0 : Math.max(0, 1 - poolWait - queries),
  };
}

/** The middle value (the upper of the two middle ones for an even count) of a non-empty list. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The measured seconds' median p99, at the generator and inside the service: how much of a
 * typical second's tail the service's own work accounts for. (Per-second p99s do not add up to
 * the run's p99; their median compares like with like.)
 */
export function typicalSecond(
  seconds: { p99Ms: number; service?: ServiceSecond | null }[],
): { generatorP99Ms: number; serviceP99Ms: number } | null {
  const probed = seconds.filter((second) => second.service != null);
  if (probed.length === 0) return null;
  return {
    generatorP99Ms: median(probed.map((second) => second.p99Ms)),
    serviceP99Ms: median(probed.map((second) => second.service!.p99Ms)),
  };
}
