import { join } from 'node:path';
import { freePort, spawnChild } from './child-process.js';
import { createCpuMeter, type CpuMeter } from './cpu-usage.js';
import type { FloorRoute } from './floor-statements.js';
import { call } from './http-client.js';
import { prepareLoad, type LoadRequest, type LoadSettings } from './load.js';
import { measureWarm, type Measured } from './measure.js';
import type { BenchContext, Scenario } from './scenarios.js';

/** A floor: a server in its own process (as the service is) that the scenarios are held against. */
export interface FloorServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export const FLOORS = {
  /** Bare node:http, a constant 31-byte JSON body: the most this runtime answers on this machine. */
  nodeHttp: { label: 'node:http', script: 'baseline-server.ts', readyPath: '/' },
  /** Bare Fastify, the same body: the framework's own limit. */
  fastify: { label: 'bare Fastify', script: 'fastify-floor-server.ts', readyPath: '/' },
  /** node:http + pg sending the database scenarios' statements: their same-work floor (PostgreSQL only). */
  sameWork: { label: 'same-work node:http + pg', script: 'same-work-server.ts', readyPath: '/v1/admin/users' },
} as const;

export type FloorKind = keyof typeof FLOORS;

/**
 * Starts a floor server (tsx only loads it; requests run plain Node) and waits for its first 200.
 * `args` follow the port (the same-work floor takes the database URL).
 */
export async function startFloor(kind: FloorKind, args: string[] = []): Promise<FloorServer> {
  const { label, script, readyPath } = FLOORS[kind];
  const port = await freePort();
  const child = spawnChild(
    label,
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, script), String(port), ...args],
    { PATH: process.env.PATH, NODE_ENV: 'production' },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 500; attempt += 1) {
    try {
      if ((await call(baseUrl, { path: readyPath, timeoutMs: 1_000 })).status === 200) {
        return {
          baseUrl,
          pid: child.pid,
          stop: async () => {
            await child.stop();
          },
        };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the ${label} floor did not start:\n${child.tail()}`);
}

const SAME_WORK_LABEL: Record<FloorRoute, string> = {
  users: 'same-work users list',
  audit: 'same-work audit list',
  achievement: 'same-work achievement PATCH',
};

/** The floor row a scenario's ratio is taken against. */
export function floorName(floor: Scenario['floor']): string {
  return floor === 'fastify' ? 'bare Fastify' : SAME_WORK_LABEL[floor];
}

export interface Floors {
  /** The floors measured, in the table's order. */
  names: string[];
  /** The status each floor's answers must carry (the achievement PATCH's 204). */
  expectedStatus: Map<string, number>;
  /** One measured run of every floor (warm-up first), by name. */
  measure(): Promise<Map<string, Measured>>;
  stop(): Promise<void>;
}

/**
 * node:http and bare Fastify answer a constant body; on PostgreSQL the same-work server answers
 * the selected database scenarios' own requests (the same LoadRequest, tokens and all, which it
 * ignores), its CPU counted with the bench database's backends as the service's is.
 */
export async function startFloors(
  databaseUrl: string | undefined,
  scenarios: Scenario[],
  context: BenchContext,
  settings: LoadSettings,
  log: (line: string) => void,
): Promise<Floors> {
  const servers: FloorServer[] = [];
  const loads: {
    name: string;
    server: FloorServer;
    cpu: CpuMeter;
    request: LoadRequest;
    expectedStatus: number;
  }[] = [];
  const constant = { method: 'GET', path: '/' } as const;
  for (const [name, kind] of [
    ['node:http', 'nodeHttp'],
    ['bare Fastify', 'fastify'],
  ] as const) {
    const server = await startFloor(kind);
    servers.push(server);
    loads.push({
      name,
      server,
      cpu: await createCpuMeter(server.pid, undefined),
      request: constant,
      expectedStatus: 200,
    });
  }
  const sameWork = scenarios.filter((scenario) => scenario.floor !== 'fastify');
  if (databaseUrl !== undefined && sameWork.length > 0) {
    const server = await startFloor('sameWork', [databaseUrl]);
    servers.push(server);
    const cpu = await createCpuMeter(server.pid, databaseUrl);
    for (const scenario of sameWork)
      loads.push({
        name: SAME_WORK_LABEL[scenario.floor as FloorRoute],
        server,
        cpu,
        request: scenario.request(context),
        expectedStatus: scenario.expectedStatus,
      });
  }
  // Each floor load keeps numbering its requests across runs, as a scenario's does (writes never repeat).
  const prepared = loads.map((load) => ({ ...load, load: prepareLoad(load.server.baseUrl, load.request, settings) }));
  return {
    names: loads.map((load) => load.name),
    expectedStatus: new Map(loads.map((load) => [load.name, load.expectedStatus])),
    async measure() {
      const measured = new Map<string, Measured>();
      for (const { name, load, cpu } of prepared) {
        log(`  floor: ${name}…`);
        measured.set(name, await measureWarm(load, cpu));
      }
      return measured;
    },
    async stop() {
      for (const meter of new Set(prepared.map((load) => load.cpu))) await meter.close();
      for (const server of servers) await server.stop();
    },
  };
}
