import type { CpuMeter } from './cpu-usage.js';
import { formatTable } from './report.js';
import type { MixDriver } from './soak-driver.js';
import type { MixKind } from './soak-mix.js';
import { coresOf, MAX_ERROR_RATE, milliseconds, type CpuCores } from './soak-report.js';
import { percentiles } from './soak-stats.js';

/**
 * The sustained maximum: the highest fixed rate the service holds, open loop, for a step of
 * minutes. The closed-loop burst (ten connections, 20 s) is bound by the round trip, not by what
 * the machine sustains: it rose 12 % with a cheaper generator and the service unchanged, and at
 * 70 % of it two soaks fell behind for good (docs/decisions/0073-soak-method.md).
 *
 * The ladder climbs from a share of the burst in steps of a share of it. A step holds when its
 * errors stay under the soak's own bound and no 10-second window's median request waited past
 * SATURATED_P50_MS: a median that high is a queue (the service answers the mix in 2–4 ms), and
 * past capacity the queue, and with it the median, grows for as long as the step lasts. The p99
 * bounds play no part: they are what the soak checks, at a share of this rate.
 */
export const LADDER_WINDOW_SECONDS = 10;
export const SATURATED_P50_MS = 100;

export interface LadderSettings {
  /** The first step, as a share of the burst maximum. */
  fromShare: number;
  /** Each step's rise (or fall, while nothing has held yet), as a share of the burst maximum. */
  stepShare: number;
  stepSeconds: number;
  /** The climb stops here even if every step held. */
  topShare: number;
}

export const DEFAULT_LADDER: LadderSettings = { fromShare: 0.6, stepShare: 0.05, stepSeconds: 120, topShare: 1.5 };

/** Requests due in one window of a step: their latencies (errors included) and how many erred. */
export interface WindowTally {
  latencies: number[];
  errors: number;
}

export interface StepVerdict {
  held: boolean;
  /** Why a step did not hold; null when it held. */
  reason: string | null;
  requests: number;
  errors: number;
  /** The highest median of the step's windows. */
  worstWindowP50Ms: number;
}

export function judgeStep(windows: WindowTally[]): StepVerdict {
  const requests = windows.reduce((sum, window) => sum + window.latencies.length, 0);
  const errors = windows.reduce((sum, window) => sum + window.errors, 0);
  const worstWindowP50Ms = Math.max(0, ...windows.map((window) => percentiles(window.latencies)?.p50Ms ?? 0));
  const verdict = { requests, errors, worstWindowP50Ms };
  if (requests === 0) return { held: false, reason: 'no request was due', ...verdict };
  if (errors / requests >= MAX_ERROR_RATE) {
    return {
      held: false,
      reason: `errors ${((errors / requests) * 100).toFixed(2)} % (bound ${(MAX_ERROR_RATE * 100).toFixed(1)} %)`,
      ...verdict,
    };
  }
  if (worstWindowP50Ms > SATURATED_P50_MS) {
    return {
      held: false,
      reason:
        `a ${LADDER_WINDOW_SECONDS}-s window's median ${milliseconds(worstWindowP50Ms)} (a queue: over ` +
        `${SATURATED_P50_MS} ms)`,
      ...verdict,
    };
  }
  return { held: true, reason: null, ...verdict };
}

/**
 * The next step's share of the burst, or null when the climb is over: up after a step that held
 * (to `topShare`), down while none has held yet, and over at the first failure after a hold or the
 * first hold after failures.
 */
export function nextShare(settings: LadderSettings, steps: { share: number; held: boolean }[]): number | null {
  const last = steps[steps.length - 1];
  if (last === undefined) return settings.fromShare;
  const anyHeldBefore = steps.slice(0, -1).some((step) => step.held);
  const anyFailedBefore = steps.slice(0, -1).some((step) => !step.held);
  // Rounded so that 0.6 + 0.05 + … lands on the shares the settings name, not on 0.7000000000000001.
  const share = (value: number) => Math.round(value * 1e6) / 1e6;
  if (last.held) {
    if (anyFailedBefore) return null;
    const up = share(last.share + settings.stepShare);
    return up > settings.topShare ? null : up;
  }
  if (anyHeldBefore) return null;
  const down = share(last.share - settings.stepShare);
  return down <= 0 ? null : down;
}

export interface LadderStep extends StepVerdict {
  share: number;
  rate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  cpu: CpuCores;
}

export interface Ladder {
  settings: LadderSettings;
  burstRequestsPerSecond: number;
  steps: LadderStep[];
  /** The highest rate that held; null if none did. */
  sustainedRequestsPerSecond: number | null;
}

async function runStep(
  driver: MixDriver,
  kinds: MixKind[],
  rate: number,
  seconds: number,
  cpu: CpuMeter,
): Promise<Omit<LadderStep, 'share'>> {
  const windows: WindowTally[] = Array.from({ length: Math.ceil(seconds / LADDER_WINDOW_SECONDS) }, () => ({
    latencies: [],
    errors: 0,
  }));
  const window = await cpu.window();
  const origin = performance.now();
  await driver.openLoop(
    rate,
    seconds,
    (result) => {
      const tally =
        windows[Math.min(windows.length - 1, Math.floor((result.dueAt - origin) / (LADDER_WINDOW_SECONDS * 1_000)))]!;
      tally.latencies.push(result.latencyMs);
      if (result.answer !== kinds[result.kind]!.expectedStatus) tally.errors += 1;
    },
    origin,
  );
  const used = await window.end();
  const all = percentiles(windows.flatMap((tally) => tally.latencies));
  return {
    rate,
    ...judgeStep(windows),
    p50Ms: all?.p50Ms ?? null,
    p99Ms: all?.p99Ms ?? null,
    cpu: coresOf(used, (performance.now() - origin) / 1_000),
  };
}

/** Climbs the ladder (see above) and returns every step; the sustained maximum is the highest that held. */
export async function climbLadder(
  driver: MixDriver,
  kinds: MixKind[],
  burstRequestsPerSecond: number,
  settings: LadderSettings,
  cpu: CpuMeter,
  log: (line: string) => void,
): Promise<Ladder> {
  log(
    `sustained maximum: steps of ${settings.stepSeconds} s from ${Math.round(settings.fromShare * 100)} % of the ` +
      `burst maximum, ${Math.round(settings.stepShare * 100)} % of it at a time, open loop…`,
  );
  const steps: LadderStep[] = [];
  for (let share = nextShare(settings, steps); share !== null && !driver.stopped; share = nextShare(settings, steps)) {
    const rate = Math.round(share * burstRequestsPerSecond);
    const step = { share, ...(await runStep(driver, kinds, rate, settings.stepSeconds, cpu)) };
    steps.push(step);
    log(
      `  ${rate} requests/s (${Math.round(share * 100)} %): ${step.held ? 'held' : `not held, ${step.reason}`}; ` +
        `p50 ${milliseconds(step.p50Ms ?? undefined)}, p99 ${milliseconds(step.p99Ms ?? undefined)}, ${step.errors} ` +
        `errors`,
    );
  }
  const held = steps.filter((step) => step.held).map((step) => step.rate);
  return {
    settings,
    burstRequestsPerSecond,
    steps,
    sustainedRequestsPerSecond: held.length === 0 ? null : Math.max(...held),
  };
}

export function ladderTable(ladder: Ladder): string {
  const header = [
    'rate',
    'share of burst',
    'requests',
    'errors',
    'p50',
    'p99',
    `worst ${LADDER_WINDOW_SECONDS}-s p50`,
    'service',
    'database',
    'generator',
    'held',
  ];
  const lines = ladder.steps.map((step) => [
    String(step.rate),
    `${Math.round(step.share * 100)} %`,
    String(step.requests),
    String(step.errors),
    milliseconds(step.p50Ms ?? undefined),
    milliseconds(step.p99Ms ?? undefined),
    milliseconds(step.worstWindowP50Ms),
    step.cpu.service.toFixed(2),
    step.cpu.database?.toFixed(2) ?? '–',
    step.cpu.loadGenerator.toFixed(2),
    step.held ? 'yes' : `no: ${step.reason}`,
  ]);
  return formatTable(header, lines, (column) => column > 0 && column < 10);
}
