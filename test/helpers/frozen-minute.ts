import { afterAll, beforeAll, vi } from 'vitest';
import { startTestApp, type TestApp } from './app.js';

const MINUTE = 60_000;

/**
 * For rate-limit tests of a describe block: an app started while `Date` stands still 10 s into a
 * minute (timers run for real), so no fixed-window edge falls mid-test. The app is built after
 * `Date` is faked because its limiter reads the clock it was built with. Answers the frozen time
 * and a getter of the app, which exists only once the block's beforeAll has run.
 */
export function appInFrozenMinute(): { app: () => TestApp; frozenAt: number } {
  const frozenAt = Math.ceil(Date.now() / MINUTE) * MINUTE + 10_000;
  let app: TestApp | undefined;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(frozenAt);
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
    vi.useRealTimers();
  });
  return {
    frozenAt,
    app: () => {
      if (app === undefined) throw new Error('the frozen-minute app exists once the describe block has started');
      return app;
    },
  };
}
