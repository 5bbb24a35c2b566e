import { existsSync, readFileSync } from 'node:fs';

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
}

export function readProbe(file: string): ServiceSecond[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ServiceSecond);
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
      if (Math.abs(second.at - end) <= 500 && (best === null || Math.abs(second.at - end) < Math.abs(best.at - end))) best = second;
    }
    return best;
  });
}

/** `service p99 201 ms, loop max 22 ms, GC 44 ms`: what to print beside a slow second. */
export function probeText(second: ServiceSecond | null | undefined): string {
  if (second == null) return '';
  return ` (service p99 ${second.p99Ms} ms, event loop max ${second.loopMaxMs} ms, GC ${second.gcMs} ms)`;
}

/**
 * The measured seconds' median p99, at the generator and inside the service: how much of a
 * typical second's tail the service's own work accounts for. (Per-second p99s do not add up to
 * the run's p99; their median compares like with like.)
 */
export function typicalSecond(seconds: { p99Ms: number; service?: ServiceSecond | null }[]): { generatorP99Ms: number; serviceP99Ms: number } | null {
  const probed = seconds.filter((second) => second.service != null);
  if (probed.length === 0) return null;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { generatorP99Ms: median(probed.map((second) => second.p99Ms)), serviceP99Ms: median(probed.map((second) => second.service!.p99Ms)) };
}
