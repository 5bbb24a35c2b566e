// Loaded into the service by `npm run soak -- --probe` (node --import): once a second it appends
// to SERVICE_PROBE_FILE what the service itself saw in that second, so a slow second of the soak
// can be told apart: slow inside the service (its requests' own time, split into waiting for a
// pooled connection, waiting on queries and the rest), a blocked event loop, a garbage
// collection, or a machine that gave the whole process no core. Plain JavaScript: the service
// runs compiled, without tsx.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { traceRequestPhases } from './request-phases.mjs';

/** Requests slower than this inside the service count as slow: their phases are summed. */
const SLOW_MS = 20;

const file = process.env.SERVICE_PROBE_FILE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });

  // From the request's headers parsed to the response's last byte handed to the socket.
  let durations = [];
  let slowest = null;
  const slow = { count: 0, ms: 0, poolWaitMs: 0, queryMs: 0 };
  traceRequestPhases(pg, (phases) => {
    durations.push(phases.ms);
    if (slowest === null || phases.ms > slowest.ms) slowest = phases;
    if (phases.ms < SLOW_MS) return;
    slow.count += 1;
    slow.ms += phases.ms;
    slow.poolWaitMs += phases.poolWaitMs;
    slow.queryMs += phases.queryMs;
  });

  const round = (ms) => Math.round(ms * 10) / 10;
  // Counts are whole already: only the milliseconds change.
  const rounded = (phases) =>
    Object.fromEntries(
      Object.entries(phases).map(([key, value]) => [key, typeof value === 'number' ? round(value) : value]),
    );
  setInterval(() => {
    durations.sort((a, b) => a - b);
    const at = (share) =>
      durations.length === 0 ? 0 : durations[Math.min(durations.length - 1, Math.floor(share * durations.length))];
    const second = {
      at: Date.now(),
      requests: durations.length,
      p99Ms: round(at(0.99)),
      maxMs: round(at(1)),
      loopP99Ms: round(loop.percentile(99) / 1e6),
      loopMaxMs: round(loop.max / 1e6),
      gcMs: round(gcMs),
      slowest: slowest === null ? null : rounded(slowest),
      slow: rounded(slow),
    };
    appendFileSync(file, `${JSON.stringify(second)}\n`);
    loop.reset();
    gcMs = 0;
    durations = [];
    slowest = null;
    Object.assign(slow, { count: 0, ms: 0, poolWaitMs: 0, queryMs: 0 });
  }, 1_000).unref();
}
