import { describe, expect, it } from 'vitest';
import { probeText, slowRequestShares, type ServiceSecond } from '../../bench/soak-probe.js';

function second(slow: ServiceSecond['slow'], slowest: ServiceSecond['slowest'] = null): ServiceSecond {
  return {
    at: 0,
    requests: 1_000,
    p99Ms: 30,
    maxMs: 120,
    loopP99Ms: 2,
    loopMaxMs: 12,
    gcMs: 20,
    slowest,
    ...(slow === undefined ? {} : { slow }),
  };
}

describe("the soak probe's phases", () => {
  it('prints where the slowest request of a second spent its time', () => {
    expect(
      probeText(
        second(undefined, {
          what: 'GET /v1/admin/users',
          ms: 121.4,
          poolWaitMs: 80.2,
          queryMs: 30.1,
          queries: 2,
          slowestQuery: { ms: 24.6, text: 'select count(*) from users' },
        }),
      ),
    ).toBe(
      ' (service p99 30 ms, event loop max 12 ms, GC 20 ms; slowest GET /v1/admin/users 121 ms: pool wait 80, 2 queries 30 (the longest 25: select count(*) from users), the rest 11)',
    );
    expect(
      probeText(
        second(undefined, {
          what: 'GET /v1/me',
          ms: 300,
          poolWaitMs: 281.6,
          queryMs: 15,
          queries: 1,
          longestPoolWait: { ms: 281.6, pool: 'platform-api reads' },
        }),
      ),
    ).toBe(
      ' (service p99 30 ms, event loop max 12 ms, GC 20 ms; slowest GET /v1/me 300 ms: pool wait 282 (platform-api reads), 1 query 15, the rest 3)',
    );
    expect(probeText(second(undefined))).toBe(' (service p99 30 ms, event loop max 12 ms, GC 20 ms)');
  });

  it('sums the slow requests of the run into shares of their time; none without a phase-traced probe', () => {
    const seconds = [
      { service: second({ count: 2, ms: 100, poolWaitMs: 50, queryMs: 30 }) },
      { service: second({ count: 1, ms: 100, poolWaitMs: 0, queryMs: 10 }) },
      { service: null },
    ];
    expect(slowRequestShares(seconds)).toEqual({ requests: 2_000, count: 3, poolWait: 0.25, queries: 0.2, rest: 0.55 });
    expect(slowRequestShares([{ service: second(undefined) }, {}])).toBeNull();
  });
});
