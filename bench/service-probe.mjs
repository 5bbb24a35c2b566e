// Loaded into the service by `npm run soak -- --probe` (node --import): once a second it appends
// to SERVICE_PROBE_FILE what the service itself saw in that second, so a slow second of the soak
// can be told apart: slow inside the service (its requests' own time), a blocked event loop, a
// garbage collection, or a machine that gave the whole process no core. Plain JavaScript: the
// service runs compiled, without tsx.
import diagnosticsChannel from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.SERVICE_PROBE_FILE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });

  // From the request's headers parsed to the response's last byte handed to the socket.
  const startedAt = new WeakMap();
  let durations = [];
  diagnosticsChannel.subscribe('http.server.request.start', ({ request }) => startedAt.set(request, performance.now()));
  diagnosticsChannel.subscribe('http.server.response.finish', ({ request }) => {
    const started = startedAt.get(request);
    if (started !== undefined) durations.push(performance.now() - started);
  });

  const round = (ms) => Math.round(ms * 10) / 10;
  setInterval(() => {
    durations.sort((a, b) => a - b);
    const at = (share) => (durations.length === 0 ? 0 : durations[Math.min(durations.length - 1, Math.floor(share * durations.length))]);
    const second = {
      at: Date.now(),
      requests: durations.length,
      p99Ms: round(at(0.99)),
      maxMs: round(at(1)),
      loopP99Ms: round(loop.percentile(99) / 1e6),
      loopMaxMs: round(loop.max / 1e6),
      gcMs: round(gcMs),
    };
    appendFileSync(file, `${JSON.stringify(second)}\n`);
    loop.reset();
    gcMs = 0;
    durations = [];
  }, 1_000).unref();
}
