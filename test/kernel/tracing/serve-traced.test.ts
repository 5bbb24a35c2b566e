import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';
import { closedPort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/waiting.js';
import { serveBehindIdentity, type ServedBehindIdentity } from '../../reliability/serve-behind-identity.js';

/**
 * Issue 41, section 3: the real `serve` process with OTEL_EXPORTER_OTLP_ENDPOINT set, as an
 * operator runs it (tracing.test.ts drives an app inside the test process). The log lines written
 * outside any span (the metrics listener's at start, the scheduler's after a run) once threw, and
 * the process exited at start or died at the first scheduled job. Here a job is due when the
 * instance starts: its span reaches the receiver, the instance lives on, and SIGTERM drains it to 0.
 */

/** A cheap job with nothing to do on a fresh database; due at start, the scheduler's first poll (5 s) runs it. */
const JOB = 'prune-job-runs';

function serveTraced(receiver: OtlpReceiver, settings: Record<string, string> = {}): Promise<ServedBehindIdentity> {
  return serveBehindIdentity({ LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...settings }, (db) =>
    db.query(`UPDATE scheduled_jobs SET next_run_at = now() - interval '1 minute' WHERE key = $1`, [JOB]),
  );
}

/** The job's run exported as a root span, the instance alive after it, then SIGTERM and exit 0. */
async function runsTheJobThenDrains(receiver: OtlpReceiver, { served }: ServedBehindIdentity): Promise<void> {
  const ran = () => /"msg":"scheduled job ran"/.test(served.output().stdout);
  await waitFor(() => ran() || served.child.exitCode !== null, 'the scheduled job to run', { timeoutMs: 30_000 });
  expect(served.child.exitCode, served.output().stderr).toBeNull();
  // The batch is exported within the SDK's delay (5 s).
  await waitFor(() => receiver.spans().some((span) => span.name === `job ${JOB}`), `the span of job ${JOB}`, {
    timeoutMs: 15_000,
  });
  const job = receiver.spans().find((span) => span.name === `job ${JOB}`)!;
  expect(job).toMatchObject({ parentSpanId: '', serviceName: 'platform-api' });
  expect(job.attributes).toMatchObject({ 'job.key': JOB, 'job.trigger': 'schedule', 'job.outcome': 'ok' });
  // Its statements are its children.
  expect(receiver.spans().filter((span) => span.parentSpanId === job.spanId).length).toBeGreaterThan(0);

  expect(served.child.exitCode).toBeNull();
  expect((await fetch(`${served.base}/health/live`)).status).toBe(200);
  await waitFor(() => receiver.spans().some((span) => span.name === 'GET /health/live'), 'the server span', {
    timeoutMs: 15_000,
  });

  served.child.kill('SIGTERM');
  // Polled, not an 'exit' listener: the serve helper drops those on each line the process logs.
  await waitFor(() => served.child.exitCode !== null, 'the process to exit', { timeoutMs: 15_000 });
  const { stdout, stderr } = served.output();
  expect(served.child.exitCode).toBe(0);
  expect(stderr).not.toMatch(/unhandled|uncaught|not extensible/i);
  expect(stdout).toMatch(/"msg":"drained"/);
  // A line written outside any span still logs, with its own fields and no trace's.
  const runLines = stdout
    .split('\n')
    .filter((line) => line.includes('"msg":"scheduled job ran"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  // Another job (the campaigns', each minute) may have run too.
  expect(runLines.length).toBeGreaterThan(0);
  for (const line of runLines) {
    expect(line).toHaveProperty('summary');
    expect(line).not.toHaveProperty('trace_id');
  }
}

describe('serve with tracing on', () => {
  // Both instances start at once: their starts, the scheduler's first poll and the export delay overlap.
  let plain: { receiver: OtlpReceiver; fixture?: ServedBehindIdentity };
  let withMetrics: { receiver: OtlpReceiver; fixture?: ServedBehindIdentity };
  beforeAll(async () => {
    plain = { receiver: await startOtlpReceiver() };
    withMetrics = { receiver: await startOtlpReceiver() };
    const metricsPort = String(await closedPort());
    [plain.fixture, withMetrics.fixture] = await Promise.all([
      serveTraced(plain.receiver),
      serveTraced(withMetrics.receiver, { METRICS_PORT: metricsPort }),
    ]);
    // A start under a loaded machine can take most of a minute.
  }, 120_000);
  afterAll(async () => {
    for (const { receiver, fixture } of [plain, withMetrics]) {
      await fixture?.close();
      await receiver?.close();
    }
  });

  it('runs a scheduled job, exports its span, stays up, and exits 0 on SIGTERM', async () => {
    await runsTheJobThenDrains(plain.receiver, plain.fixture!);
  }, 90_000);

  it('with METRICS_PORT set: starts (the metrics listener logs its address), runs a job, exits 0 on SIGTERM', async () => {
    expect(withMetrics.fixture!.served.output().stdout).toMatch(/"msg":"metrics listening"/);
    await runsTheJobThenDrains(withMetrics.receiver, withMetrics.fixture!);
  }, 90_000);
});
