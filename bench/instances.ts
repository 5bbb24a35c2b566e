import { createCpuMeter } from './cpu-usage.js';
import { prepareLoad, type LoadResult, type LoadSettings } from './load.js';
import { statusMix, type Row, type ScenarioOutcome } from './report.js';
import type { BenchContext, Scenario } from './scenarios.js';
import { startService, type RunningService, type ServiceSettings } from './service-process.js';

/**
 * Issue 31's scale-out step: the scenarios below again with more service instances on the one
 * database, the connections shared out among them (a round-robin load balancer), against the same
 * scenario on one instance earlier in the same run. One from memory, one read, one audited write.
 */
export const SCALE_OUT_SCENARIOS = [
  'GET /v1/me',
  'GET /v1/admin/users (page 1, with total)',
  'PATCH /v1/admin/catalog/achievements/{id}',
] as const;

export interface ScaleOutOutcome {
  name: string;
  instances: number;
  /** The same scenario on one instance, earlier in this run. */
  single: ScenarioOutcome;
  requestsPerSecond: number;
  statuses: Record<string, number>;
  /** CPU ms per answered request: every instance together, and the database backends. */
  serviceCpuMs: number;
  databaseCpuMs: number | null;
}

/** The extra instances, started once for every scale-out scenario (the first is the bench's own). */
export async function startExtraInstances(settings: ServiceSettings, instances: number): Promise<RunningService[]> {
  const extra: RunningService[] = [];
  for (let n = 1; n < instances; n += 1) extra.push(await startService(settings));
  return extra;
}

function merged(results: LoadResult[]): { requestsPerSecond: number; statuses: Record<string, number>; total: number } {
  const statuses: Record<string, number> = {};
  for (const result of results)
    for (const [code, count] of Object.entries(result.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return {
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    statuses,
    total: results.reduce((sum, result) => sum + result.total, 0),
  };
}

/** Every instance loaded at once, each with its share of the connections; warm-up first, then the measured run. */
export async function measureScaleOut(
  scenario: Scenario,
  single: ScenarioOutcome,
  context: BenchContext,
  services: RunningService[],
  databaseUrl: string | undefined,
  settings: LoadSettings,
): Promise<ScaleOutOutcome> {
  await scenario.before?.(context, settings);
  try {
    const share = { ...settings, connections: Math.max(1, Math.round(settings.connections / services.length)) };
    const loads = services.map((service) => prepareLoad(service.baseUrl, scenario.request(context), share));
    await Promise.all(loads.map((load) => load.warmUp()));
    const cpu = await createCpuMeter(
      services.map((service) => service.pid),
      databaseUrl,
    );
    const window = await cpu.window();
    const results = await Promise.all(loads.map((load) => load.measure()));
    const used = await window.end();
    await cpu.close();
    const { requestsPerSecond, statuses, total } = merged(results);
    const perRequest = (ms: number) => ms / Math.max(1, total);
    return {
      name: scenario.name,
      instances: services.length,
      single,
      requestsPerSecond,
      statuses,
      serviceCpuMs: perRequest(used.serviceMs),
      databaseCpuMs: used.databaseMs === null ? null : perRequest(used.databaseMs),
    };
  } finally {
    await scenario.after?.(context);
  }
}

/** The table's row: the rate on N instances and its ratio to one instance's, with the CPU it took. */
export function scaleOutRow(outcome: ScaleOutOutcome): Row {
  const wrong = Object.keys(outcome.statuses).some((code) => code !== String(outcome.single.expectedStatus));
  const singleCpu = outcome.single.cpu;
  return {
    scenario: `${outcome.name} on ${outcome.instances} instances`,
    requestsPerSecond: outcome.requestsPerSecond,
    p50Ms: null,
    p99Ms: null,
    floor: '1 instance',
    ratio: outcome.requestsPerSecond / outcome.single.result.requestsPerSecond,
    nodeHttpRatio: null,
    peakRssMb: null,
    cpuMs: { service: outcome.serviceCpuMs, database: outcome.databaseCpuMs },
    loadGeneratorCores: null,
    target: '',
    met: wrong ? 'FAILED' : '-',
    statuses:
      `${statusMix(outcome.statuses)}; 1 instance: ${singleCpu.service.toFixed(2)}` +
      `${singleCpu.database === null ? '' : `+${singleCpu.database.toFixed(2)}`} ms CPU per request`,
  };
}
