import { join } from 'node:path';
import { freePort, spawnChild, type Child } from './child-process.js';
import { processCpuMs } from './cpu-usage.js';
import { call } from './http-client.js';
import { RssMonitor } from './memory.js';

const ENTRY = join(import.meta.dirname, '..', 'dist', 'main.js');
const HEALTH_POLL_MS = 10;
const START_TIMEOUT_MS = 180_000;

export interface ServiceSettings {
  dataDir: string;
  /** PostgreSQL; unset: the embedded database in dataDir. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  jwtSecret: string;
  /** Directory for `node --cpu-prof` output; unset: no profile. */
  cpuProfileDir?: string;
  /** More options for node (a heap setting being measured); unset: none. */
  nodeOptions?: string[];
  /** OTEL_EXPORTER_OTLP_ENDPOINT: traces exported there; unset: tracing off, as in production by default. */
  otelEndpoint?: string;
}

/**
 * The environment of a production start (README "Configuration"), built from scratch so a
 * DATABASE_URL or LOG_LEVEL in the shell running the bench cannot leak into the service.
 */
export function productionEnv(settings: ServiceSettings, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: settings.dataDir,
    JWT_SECRET: settings.jwtSecret,
  };
  // The service refuses NODE_ENV=production on the embedded database (a development mode); at
  // LOG_LEVEL warn the per-request lines it would turn off are not written either way.
  if (settings.databaseUrl !== undefined) {
    env.NODE_ENV = 'production';
    env.DATABASE_URL = settings.databaseUrl;
  }
  if (settings.redisUrl !== undefined) env.REDIS_URL = settings.redisUrl;
  if (settings.otelEndpoint !== undefined) env.OTEL_EXPORTER_OTLP_ENDPOINT = settings.otelEndpoint;
  return env;
}

export interface RunningService {
  baseUrl: string;
  pid: number;
  /** Milliseconds from spawning the process to its first 200 on /health. */
  startupMs: number;
  /** CPU milliseconds (user + system) the process had used at its first 200 on /health: steadier than startupMs on a busy machine. */
  startupCpuMs: number;
  memory: RssMonitor;
  /** Lines the service logged (at warn or above); each is worth a look. */
  logLines(): number;
  logTail(): string;
  /** Stops the service (SIGTERM, as an orchestrator would) and answers its peak RSS in MB. */
  stop(): Promise<{ peakRssMb: number }>;
}

/** Runs the compiled service (`node dist/main.js serve`) and waits for /health to answer 200. */
export async function startService(settings: ServiceSettings): Promise<RunningService> {
  const port = await freePort();
  const nodeArgs = [
    ...(settings.nodeOptions ?? []),
    ...(settings.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', settings.cpuProfileDir]),
  ];
  const started = performance.now();
  const child = spawnChild('service', process.execPath, [...nodeArgs, ENTRY, 'serve'], productionEnv(settings, port));
  const baseUrl = `http://127.0.0.1:${port}`;
  const startupMs = await firstHealthy(child, baseUrl, started);
  const startupCpuMs = processCpuMs(child.pid) ?? Number.NaN;
  const memory = new RssMonitor(child.pid);
  return {
    baseUrl,
    pid: child.pid,
    startupMs,
    startupCpuMs,
    memory,
    logLines: () => child.logLineCount(),
    logTail: () => child.tail(),
    async stop() {
      const peakRssMb = memory.peakMb();
      memory.stop();
      const exit = await child.stop();
      if (exit !== 0) process.stderr.write(`service exited with ${exit}:\n${child.tail()}\n`);
      return { peakRssMb };
    },
  };
}

async function firstHealthy(child: Child, baseUrl: string, started: number): Promise<number> {
  let exited: number | string | undefined;
  void child.exited.then((code) => {
    exited = code;
  });
  while (performance.now() - started < START_TIMEOUT_MS) {
    if (exited !== undefined)
      throw new Error(`the service exited (${exited}) before answering /health:\n${child.tail()}`);
    try {
      const answer = await call(baseUrl, { path: '/health', timeoutMs: 2_000 });
      if (answer.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
  }
  throw new Error(`the service did not answer 200 on /health within ${START_TIMEOUT_MS / 1000} s:\n${child.tail()}`);
}
