import { join } from 'node:path';
import { freePort, spawnChild } from './child-process.js';
import { call } from './http-client.js';

const SCRIPT = join(import.meta.dirname, 'baseline-server.ts');

export interface BaselineServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the raw node:http server in a child process (tsx only loads it; requests run plain Node). */
export async function startBaseline(): Promise<BaselineServer> {
  const port = await freePort();
  const child = spawnChild('baseline', process.execPath, ['--import', 'tsx', SCRIPT, String(port)], {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 500; attempt += 1) {
    try {
      if ((await call(baseUrl, { path: '/', timeoutMs: 1_000 })).status === 200) {
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
  throw new Error(`the baseline server did not start:\n${child.tail()}`);
}
