import type { CpuMeter } from './cpu-usage.js';
import type { Load, LoadResult } from './load.js';
import type { RssMonitor } from './memory.js';

/** CPU milliseconds per answered request, by who spent them. */
export interface CpuPerRequest {
  /** The process that answered (the service, or the baseline server). */
  service: number;
  /** PostgreSQL backends of the bench database; null on the embedded database (it is inside the service). */
  database: number | null;
  /**
   * The load generator (this process, and wrk's when wrk drives the load) while measuring, in cores: near 1, the
   * rate is the generator's limit, not the server's.
   */
  loadGeneratorCores: number;
}

export interface Measured {
  result: LoadResult;
  /** The most the service process held while the measured run went on; null for the baseline. */
  peakRssMb: number | null;
  cpu: CpuPerRequest;
}

/** Warm-up, then the measured run with CPU and memory windows around it (not around the warm-up). */
export async function measureWarm(load: Load, cpu: CpuMeter, memory?: RssMonitor): Promise<Measured> {
  await load.warmUp();
  const endMemory = memory?.window();
  const cpuWindow = await cpu.window();
  const started = performance.now();
  const result = await load.measure();
  const seconds = (performance.now() - started) / 1_000;
  const used = await cpuWindow.end();
  const perRequest = (ms: number) => ms / Math.max(1, result.total);
  return {
    result,
    peakRssMb: endMemory?.() ?? null,
    cpu: {
      service: perRequest(used.serviceMs),
      database: used.databaseMs === null ? null : perRequest(used.databaseMs),
      // This process (autocannon, or idle while wrk runs) plus wrk's own process.
      loadGeneratorCores: (used.loadGeneratorMs + (result.generatorCpuMs ?? 0)) / 1_000 / seconds,
    },
  };
}
