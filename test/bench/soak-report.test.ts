import { describe, expect, it } from 'vitest';
import { rssDrift, summarizePhase, verdict, type PhaseSummary } from '../../bench/soak-report.js';
import type { MixKind } from '../../bench/soak-mix.js';
import { Tally } from '../../bench/soak-stats.js';

/**
 * The soak's RSS check judges two minutes' means, and reports each minute's floor (its lowest
 * sample, just after a collection) beside them, so a collector's swing and a leak read apart.
 */

const kinds: MixKind[] = [
  { name: 'GET /health', weight: 100, expectedStatus: 200, at: () => ({ method: 'GET', path: '/health' }) },
];

function minute(label: string, rssMb: number[]): PhaseSummary {
  const tally = new Tally(kinds);
  tally.add({ kind: 0, answer: 200, latencyMs: 1, dueAt: 0, lagMs: 0 });
  return summarizePhase(kinds, {
    label,
    fromSecond: 0,
    toSecond: 60,
    tally,
    rssMb,
    cpu: null,
    loadAverage: [],
  });
}

const rssCheck = (minutes: PhaseSummary[]) =>
  verdict(minutes[0]!, rssDrift(minutes)).find((check) => check.check.startsWith('RSS'))!;

describe("the soak's RSS drift", () => {
  it('judges the means and shows the floor: a swing caught high at the end fails, its floor unmoved', () => {
    // Run G's shape: the last minute sits higher in the swing, the post-collection floor stays put.
    const minutes = [minute('minute 1', [180, 200, 190]), minute('minute 2', [180, 300, 260])];
    expect(rssDrift(minutes)).toEqual({
      firstMinuteMeanMb: 190,
      lastMinuteMeanMb: 740 / 3,
      drift: (740 / 3 - 190) / 190,
      firstMinuteFloorMb: 180,
      lastMinuteFloorMb: 180,
      floorDrift: 0,
    });
    expect(rssCheck(minutes)).toEqual({
      check: 'RSS drift (last minute vs first)',
      value: '+29.8 % (190 → 247 MB; floor +0.0 %, 180 → 180 MB)',
      bound: '< 10 %',
      met: false,
    });
  });

  it('shows a rising floor, the sign of a leak, and passes growth under the bound', () => {
    const minutes = [minute('minute 1', [200, 210]), minute('minute 2', [205, 225]), minute('minute 3', [220, 222])];
    const drift = rssDrift(minutes)!;
    expect(drift.floorDrift).toBeCloseTo(0.1);
    expect(drift.drift).toBeCloseTo(221 / 205 - 1);
    expect(rssCheck(minutes)).toMatchObject({ value: '+7.8 % (205 → 221 MB; floor +10.0 %, 200 → 220 MB)', met: true });
  });

  it('is not judged without two minutes of samples', () => {
    expect(rssDrift([minute('minute 1', [200])])).toBeNull();
    expect(rssDrift([minute('minute 1', [200]), minute('minute 2', [])])).toBeNull();
    expect(rssCheck([minute('minute 1', [200])])).toMatchObject({ value: 'needs 2 minutes or more', met: null });
  });
});
