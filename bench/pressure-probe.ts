import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './soak-probe.js';

/** How much of one second the machine made its tasks wait, as Linux counts it. */
export interface PressureSecond {
  /** Share of the second in which at least one task was ready to run and had no core (%). */
  cpuPressurePct: number;
  /** Share of the second in which at least one task waited for the disk (%). */
  ioPressurePct: number;
  /** Time the hypervisor ran someone else on this machine's cores, summed over the cores (ms). */
  stealMs: number;
}

interface Totals {
  atMs: number;
  cpuSomeUs: number;
  ioSomeUs: number;
  stealMs: number;
}

/** `/proc/stat` counts in USER_HZ ticks, 100 a second on every Linux the soak runs on. */
const MS_PER_TICK = 10;

/** The `total=` of the `some` line of a `/proc/pressure/*` file: microseconds since boot. */
export function someTotalUs(text: string): number {
  const total = /^some .*\btotal=(\d+)/m.exec(text)?.[1];
  if (total === undefined) throw new Error(`no "some … total=" line in ${JSON.stringify(text.slice(0, 80))}`);
  return Number(total);
}

/** The steal column (the eighth number) of `/proc/stat`'s first line, in ms summed over the cores. */
export function stealTotalMs(text: string): number {
  const fields = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  const steal = fields?.[7];
  if (steal === undefined || Number.isNaN(steal)) throw new Error('no steal column in /proc/stat');
  return steal * MS_PER_TICK;
}

/**
 * A slow second of the soak with an idle service and a normal disk sync leaves one question: was
 * the machine itself making everyone wait? Linux's pressure stall information says how long some
 * task waited for a core or for I/O, and `/proc/stat` how long the hypervisor kept the cores. Read
 * once a second beside the other probes; `undefined` where the kernel has no such files (not
 * Linux, or built without PSI), so the soak runs on as before.
 */
export function startPressureProbe(proc = '/proc'): { take(): PressureSecond } | undefined {
  const read = (): Totals => ({
    atMs: performance.now(),
    cpuSomeUs: someTotalUs(readFileSync(join(proc, 'pressure/cpu'), 'utf8')),
    ioSomeUs: someTotalUs(readFileSync(join(proc, 'pressure/io'), 'utf8')),
    stealMs: stealTotalMs(readFileSync(join(proc, 'stat'), 'utf8')),
  });
  let last: Totals;
  try {
    last = read();
  } catch {
    return undefined;
  }
  const percentOf = (waitedUs: number, elapsedMs: number) => {
    if (elapsedMs <= 0) return 0;
    const percent = (waitedUs / 1_000 / elapsedMs) * 100;
    return Math.min(100, Math.round(percent * 10) / 10);
  };
  return {
    take() {
      const now = read();
      const elapsedMs = now.atMs - last.atMs;
      const second = {
        cpuPressurePct: percentOf(now.cpuSomeUs - last.cpuSomeUs, elapsedMs),
        ioPressurePct: percentOf(now.ioSomeUs - last.ioSomeUs, elapsedMs),
        stealMs: now.stealMs - last.stealMs,
      };
      last = now;
      return second;
    },
  };
}

/** The machine's waits in a typical second against its slowest seconds: medians of each. */
export interface PressureContrast {
  typical: { cpuPressurePct: number; ioPressurePct: number };
  slowest: { cpuPressurePct: number; ioPressurePct: number; seconds: number };
}

/**
 * Whether the slow seconds were seconds in which the machine made everyone wait: the median
 * pressure of all seconds against that of the `slowest` seconds by p99. `null` without pressure
 * readings.
 */
export function pressureContrast(
  seconds: { p99Ms: number; generator: Partial<PressureSecond> | null }[],
  slowest = 10,
): PressureContrast | null {
  const read = seconds.filter(
    (second) => second.generator?.cpuPressurePct !== undefined && second.generator.ioPressurePct !== undefined,
  );
  if (read.length === 0) return null;
  const medians = (of: typeof read) => ({
    cpuPressurePct: median(of.map((second) => second.generator!.cpuPressurePct!)),
    ioPressurePct: median(of.map((second) => second.generator!.ioPressurePct!)),
  });
  const worst = [...read].sort((a, b) => b.p99Ms - a.p99Ms).slice(0, slowest);
  return { typical: medians(read), slowest: { ...medians(worst), seconds: worst.length } };
}
