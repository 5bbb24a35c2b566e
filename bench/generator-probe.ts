import type { ActivitySecond } from './activity-probe.js';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** The generator's own second: how late its event loop ran and how long it spent in GC. */
export interface GeneratorSecond {
  loopMaxMs: number;
  gcMs: number;
  gcMaxMs: number;
  /** The disk's longest sync of the second (`disk-probe.ts`), where the soak measured it. */
  diskSyncMaxMs?: number;
  /** The machine's waits in the second (`pressure-probe.ts`), where Linux counts them. */
  cpuPressurePct?: number;
  ioPressurePct?: number;
  stealMs?: number;
  /** The service's database sessions in the second (`activity-probe.ts`), on PostgreSQL. */
  sessions?: ActivitySecond;
}

/**
 * The soak's latencies are read by this process: a second in which its own event loop was held
 * (a long GC, a descheduled thread) shows as slow answers the service never gave. Recorded per
 * second beside the service's probe, so a slow second can be told apart from a slow service.
 * Node's histogram skips the first interval after a reset, so a hold starting in the very tick
 * of a `take()` goes unseen: one tick a second, the same blind spot the service's probe has.
 */
export function startGeneratorProbe(): { take(): GeneratorSecond; stop(): void } {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcMs = 0;
  let gcMaxMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    take() {
      const second = { loopMaxMs: round(loop.max / 1e6), gcMs: round(gcMs), gcMaxMs: round(gcMaxMs) };
      loop.reset();
      gcMs = 0;
      gcMaxMs = 0;
      return second;
    },
    stop() {
      loop.disable();
      observer.disconnect();
    },
  };
}
