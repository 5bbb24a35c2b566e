import { join } from 'node:path';
import { freePort, spawnChild } from './child-process.js';
import { call } from './http-client.js';

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
