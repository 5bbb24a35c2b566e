import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCpuMeter } from './cpu-usage.js';
import { expectStatus } from './http-client.js';
import { prepareLoad, type LoadSettings } from './load.js';
import { measureWarm, type Measured } from './measure.js';
import { judgedRow, statusMix, type Row } from './report.js';
import { SCENARIOS, type BenchContext } from './scenarios.js';
import { startService, type ServiceSettings } from './service-process.js';

/**
 * Issue 32's "the cost when off is nil, checked in the benchmark": one route's CPU per request on
 * a fresh instance with OTEL_EXPORTER_OTLP_ENDPOINT unset, then on one with it set to a receiver
 * in this process (every request a server span, its statements client spans, exported in batches).
 * Off has no hook, no wrapper and no span (decision 0082), so its figure is the route's own; the
 * ratio says what turning tracing on costs. The instances run one after the other (the embedded
 * database takes one at a time), after the bench's own service has stopped.
 */
export const TRACING_COST_SCENARIO = 'GET /v1/admin/users (page 1, with total)';
export const TRACING_COST_NAME = `tracing on/off: ${TRACING_COST_SCENARIO}`;

/**
 * Answers asked one at a time before the load's warm-up: a fresh instance's first requests load
 * code and warm caches (seconds on a busy machine), which the quick run's half-second warm-up
 * would otherwise spend entirely, measuring nothing.
 */
const FIRST_ANSWERS = 20;

/**
 * The shortest warm-up and measured run, also in a quick run: a fresh instance on a loaded
 * two-core machine can take most of a second per answer, and a one-second window may close on none.
 */
const MIN_WARMUP_SECONDS = 1;
const MIN_DURATION_SECONDS = 3;

export interface TracingCostOutcome {
  off: Measured;
  on: Measured;
  /** Spans the receiver was sent by the traced instance (a sign they were made and exported). */
  spansExported: number;
}

/** An OTLP/HTTP JSON receiver that answers every export at once and counts the spans. */
async function startSpanSink(): Promise<{ endpoint: string; spans: () => number; close: () => Promise<void> }> {
  let spans = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // Counting `"spanId"` keys is enough here: the traced instance's exporter writes one per span.
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function measureInstance(
  settings: ServiceSettings,
  context: BenchContext,
  load: LoadSettings,
  databaseUrl: string | undefined,
): Promise<Measured> {
  const scenario = SCENARIOS.find((each) => each.name === TRACING_COST_SCENARIO)!;
  const service = await startService(settings);
  try {
    for (let n = 0; n < FIRST_ANSWERS; n += 1)
      await expectStatus(service.baseUrl, 200, {
        path: scenario.request(context).path,
        token: context.adminToken,
        timeoutMs: 60_000,
      });
    const cpu = await createCpuMeter(service.pid, databaseUrl);
    try {
      return await measureWarm(prepareLoad(service.baseUrl, scenario.request(context), load), cpu, service.memory);
    } finally {
      await cpu.close();
    }
  } finally {
    await service.stop();
  }
}

export async function measureTracingCost(
  settings: ServiceSettings,
  context: BenchContext,
  load: LoadSettings,
): Promise<TracingCostOutcome> {
  load = {
    ...load,
    warmupSeconds: Math.max(load.warmupSeconds, MIN_WARMUP_SECONDS),
    durationSeconds: Math.max(load.durationSeconds, MIN_DURATION_SECONDS),
  };
  const off = await measureInstance(settings, context, load, settings.databaseUrl);
  const sink = await startSpanSink();
  try {
    const on = await measureInstance({ ...settings, otelEndpoint: sink.endpoint }, context, load, settings.databaseUrl);
    return { off, on, spansExported: sink.spans() };
  } finally {
    await sink.close();
  }
}

const wrongStatus = ({ result }: Measured) =>
  result.total === 0 || Object.keys(result.statuses).some((code) => code !== '200');

/** Two rows: the route untraced, and traced with its CPU per request over the untraced one's. */
export function tracingCostRows({ off, on, spansExported }: TracingCostOutcome): Row[] {
  const row = (label: string, measured: Measured, fields: Partial<Row>) =>
    judgedRow({
      scenario: `${TRACING_COST_SCENARIO}, ${label}`,
      requestsPerSecond: measured.result.requestsPerSecond,
      p50Ms: measured.result.p50Ms,
      p99Ms: measured.result.p99Ms,
      cpuMs: { service: measured.cpu.service, database: measured.cpu.database },
      loadGeneratorCores: measured.cpu.loadGeneratorCores,
      target: '',
      met: wrongStatus(measured) ? 'FAILED' : '-',
      statuses: statusMix(measured.result.statuses),
      ...fields,
    });
  return [
    row('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', off, {}),
    row('tracing on (OTLP to a local receiver)', on, {
      floor: 'tracing off',
      // CPU per request traced over untraced: what turning tracing on costs this route.
      ratio: on.cpu.service / off.cpu.service,
      met: wrongStatus(on) || spansExported === 0 ? 'FAILED' : '-',
      statuses: `${statusMix(on.result.statuses)}; ${spansExported} spans exported; ratio = CPU per request on/off`,
    }),
  ];
}
