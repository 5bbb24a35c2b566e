import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCpuMeter } from '../../bench/cpu-usage.js';
import { MixDriver } from '../../bench/soak-driver.js';
import { climbLadder, judgeStep, nextShare, SATURATED_P50_MS, type LadderSettings } from '../../bench/soak-ladder.js';
import type { MixKind } from '../../bench/soak-mix.js';

/**
 * The soak's rate is a share of the sustained maximum (bench/soak-ladder.ts): a ladder whose
 * verdicts set the rate a soak is judged at. A step must fail on a queue or on errors and on
 * nothing else, and the climb must stop where the service stops keeping up.
 */

const fast = (count: number, ms = 3) => Array.from({ length: count }, () => ms);

describe('a step of the ladder', () => {
  it('holds when every window is answered quickly and without errors', () => {
    expect(
      judgeStep([
        { latencies: fast(1_000), errors: 0 },
        { latencies: fast(1_000), errors: 0 },
      ]),
    ).toEqual({ held: true, reason: null, requests: 2_000, errors: 0, worstWindowP50Ms: 3 });
  });

  it("holds with a slow tail: the p99 is the soak's to judge, not the ladder's", () => {
    const window = { latencies: [...fast(900), ...fast(100, 2_000)], errors: 0 };
    expect(judgeStep([window]).held).toBe(true);
  });

  it("does not hold when one window's median waited past the bound (a queue)", () => {
    const queued = { latencies: [...fast(400), ...fast(600, SATURATED_P50_MS + 1)], errors: 0 };
    const verdict = judgeStep([{ latencies: fast(1_000), errors: 0 }, queued]);
    expect(verdict).toMatchObject({ held: false, worstWindowP50Ms: SATURATED_P50_MS + 1 });
    expect(verdict.reason).toMatch(/median 101 ms/);
  });

  it('holds with a median at the bound', () => {
    expect(judgeStep([{ latencies: fast(1_000, SATURATED_P50_MS), errors: 0 }]).held).toBe(true);
  });

  it("does not hold at the soak's error bound (0.1 %), and holds under it", () => {
    expect(judgeStep([{ latencies: fast(1_000), errors: 1 }])).toMatchObject({
      held: false,
      errors: 1,
      reason: 'errors 0.10 % (bound 0.1 %)',
    });
    expect(judgeStep([{ latencies: fast(1_001), errors: 1 }]).held).toBe(true);
  });

  it('does not hold when nothing was due', () => {
    expect(judgeStep([{ latencies: [], errors: 0 }])).toMatchObject({ held: false, reason: 'no request was due' });
  });
});

describe('the next step', () => {
  const settings: LadderSettings = { fromShare: 0.6, stepShare: 0.05, stepSeconds: 120, topShare: 0.8 };
  const step = (share: number, held: boolean) => ({ share, held });

  it('climbs from the first share while steps hold, and stops at the first that does not', () => {
    expect(nextShare(settings, [])).toBe(0.6);
    expect(nextShare(settings, [step(0.6, true)])).toBe(0.65);
    expect(nextShare(settings, [step(0.6, true), step(0.65, true)])).toBe(0.7);
    expect(nextShare(settings, [step(0.6, true), step(0.65, true), step(0.7, false)])).toBeNull();
  });

  it('stops at the top share even if every step held', () => {
    expect(nextShare(settings, [step(0.75, true)])).toBe(0.8);
    expect(nextShare(settings, [step(0.8, true)])).toBeNull();
  });

  it('goes down while nothing has held, and stops at the first step that holds', () => {
    expect(nextShare(settings, [step(0.6, false)])).toBe(0.55);
    expect(nextShare(settings, [step(0.6, false), step(0.55, false)])).toBe(0.5);
    expect(nextShare(settings, [step(0.6, false), step(0.55, false), step(0.5, true)])).toBeNull();
    expect(nextShare(settings, [step(0.05, false)])).toBeNull();
  });
});

describe('the climb against a server of known capacity', () => {
  // Answers one request per 1/CAPACITY s, in arrival order, each on the ideal schedule (timer
  // jitter does not add up): below capacity nothing queues, above it the queue grows for good.
  const CAPACITY = 400;
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    let freeAt = 0;
    server = createServer((request, response) => {
      request.resume();
      const now = performance.now();
      freeAt = Math.max(now, freeAt) + 1_000 / CAPACITY;
      setTimeout(() => response.writeHead(200).end('{}'), freeAt - now);
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const kinds: MixKind[] = [
    { name: 'GET /work', weight: 1, expectedStatus: 200, at: () => ({ method: 'GET', path: '/work' }) },
  ];

  async function climb(fromShare: number, stepShare: number) {
    const cpu = await createCpuMeter(process.pid, undefined);
    try {
      // A burst of 1,000 req/s: the shares are rates in thousands.
      return await climbLadder(
        new MixDriver([baseUrl], kinds),
        kinds,
        1_000,
        { fromShare, stepShare, stepSeconds: 2, topShare: 1.5 },
        cpu,
        () => {},
      );
    } finally {
      await cpu.close();
    }
  }

  it('climbs to the highest rate under capacity and no further', async () => {
    const ladder = await climb(0.3, 0.2);
    expect(ladder.steps.map((step) => [step.rate, step.held])).toEqual([
      [300, true],
      [500, false],
    ]);
    expect(ladder.steps[1]!.reason).toMatch(/median/);
    expect(ladder.steps[0]!.requests).toBe(600);
    expect(ladder.sustainedRequestsPerSecond).toBe(300);
  });

  it('comes down from a first step over capacity to the first that holds', async () => {
    const ladder = await climb(0.55, 0.25);
    expect(ladder.steps.map((step) => [step.rate, step.held])).toEqual([
      [550, false],
      [300, true],
    ]);
    expect(ladder.sustainedRequestsPerSecond).toBe(300);
  });
});
