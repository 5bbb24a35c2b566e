import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtServer } from '../helpers/server-build.js';
import { cliInProcess } from './command-line.js';

/**
 * `platform-api runtime-sim`: the simulator as its own process, keyed from the environment; its
 * refusals and usage run by the CLI's dispatcher in this process.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const KEY = 'cli-runtime-sim-key-71c4';
/** Children still running when a test ends (it failed before stopping them): killed after it. */
const running = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

function start(args: string[], env: NodeJS.ProcessEnv) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  const child = spawn(process.execPath, [builtServer(), 'runtime-sim', ...args], {
    cwd: ROOT,
    env: childEnv,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

function listening(run: ReturnType<typeof start>): Promise<string> {
  return new Promise((resolve, reject) => {
    void run.exited.then((code) => reject(new Error(`runtime-sim exited ${code}: ${run.stderr()}`)));
    run.child.stdout.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(run.stdout())?.[1];
      if (url) resolve(url);
    });
  });
}

function stop(
  child: ChildProcessWithoutNullStreams,
  exited: Promise<number | null>,
  signal: NodeJS.Signals,
): Promise<number | null> {
  child.kill(signal);
  return exited;
}

describe('platform-api runtime-sim', () => {
  it('serves the seeded Runtime API with the key from RUNTIME_API_KEY, prints its URL, and stops cleanly on SIGTERM', async () => {
    const run = start(['--port', '0', '--pull-delay-ms', '20'], { RUNTIME_API_KEY: KEY });
    const url = await listening(run);
    expect(run.stdout()).toBe(
      `Runtime simulator listening on ${url} (seeded: pool default, nodes node-1 and node-2)\n`,
    );
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect(await (await fetch(`${url}/v1/health`)).json()).toEqual({ ok: true });
    expect((await fetch(`${url}/v1/nodes`)).status).toBe(401);
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const nodes = (await (await fetch(`${url}/v1/nodes`, { headers })).json()) as { data: Array<{ id: string }> };
    expect(nodes.data.map((node) => node.id)).toEqual(['node-1', 'node-2']);

    // --pull-delay-ms took effect: a pull is ready within moments.
    const pull = await fetch(`${url}/v1/nodes/node-1/images`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ image: 'games/cli:1' }),
    });
    expect(pull.status).toBe(202);
    await expect
      .poll(
        async () => {
          const node = (await (await fetch(`${url}/v1/nodes/node-1`, { headers })).json()) as {
            images: Array<{ image: string; status: string }>;
          };
          return node.images.find((image) => image.image === 'games/cli:1')?.status;
        },
        { timeout: 2_000 },
      )
      .toBe('ready');

    expect(await stop(run.child, run.exited, 'SIGTERM')).toBe(0);
    expect(run.stderr()).toBe('');
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
  }, 30_000);

  it('--no-seed starts empty; SIGINT stops it', async () => {
    const run = start(['--port', '0', '--no-seed'], { RUNTIME_API_KEY: KEY });
    const url = await listening(run);
    expect(run.stdout()).toContain('(empty)');
    const pools = await fetch(`${url}/v1/pools`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(await pools.json()).toEqual({ data: [] });
    expect(await stop(run.child, run.exited, 'SIGINT')).toBe(0);
  }, 30_000);

  it('refuses to start without RUNTIME_API_KEY, with one line naming it', async () => {
    const run = await cliInProcess(['runtime-sim', '--port', '0'], {});
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Configuration error: RUNTIME_API_KEY: must be set/),
    ]);
  });

  it('refuses a bad --port with the usage text', async () => {
    const run = await cliInProcess(['runtime-sim', '--port', '70000'], { RUNTIME_API_KEY: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--port must be an integer from 0 to 65535');
    expect(run.stderr).toContain('Usage: platform-api runtime-sim');
  });

  it('is listed in the main --help and has its own', async () => {
    const help = await cliInProcess(['--help'], {});
    expect(help.stdout).toMatch(/^ {2}runtime-sim +serve the runtime simulator alone/m);

    const own = await cliInProcess(['runtime-sim', '--help'], {});
    expect(own.code).toBe(0);
    expect(own.stdout).toContain(
      'Usage: platform-api runtime-sim [--host 127.0.0.1] [--port 8090] [--pull-delay-ms 1500] [--no-seed]',
    );
  });
});
