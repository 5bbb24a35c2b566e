import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { onCleanup } from './cleanup.js';

/** Lines of a child's output kept for the error message when it fails to start or dies. */
const TAIL_LINES = 40;
const STOP_GRACE_MS = 15_000;

export interface Child {
  readonly label: string;
  readonly pid: number;
  /** The last lines the child wrote (stdout and stderr interleaved). */
  tail(): string;
  /** JSON (pino) log lines the child wrote so far; the service logs at warn, so each is worth reading. */
  logLineCount(): number;
  /** Settles with the exit code (or the signal's name) once the child has exited. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the child is gone. */
  stop(): Promise<number | string>;
}

export function spawnChild(label: string, command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`${label}: could not start ${command}`);
  const lines: string[] = [];
  let count = 0;
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      if (line.startsWith('{')) count += 1;
      lines.push(line);
      if (lines.length > TAIL_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });

  const stop = async () => {
    if (!gone) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    }
    return exited;
  };
  onCleanup(`stop ${label} (pid ${child.pid})`, async () => {
    await stop();
  });
  return { label, pid: child.pid, tail: () => lines.join('\n'), logLineCount: () => count, exited, stop };
}

/** A port nothing listens on right now (the kernel picks it; we close and hand it on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a command to its exit, its stdout and stderr collected together. */
export function runCollecting(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** Runs a command to completion (the build, the migrate command); throws with its output on failure. */
export async function runToCompletion(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { code, output } = await runCollecting(command, args, env);
  if (code !== 0)
    throw new Error(`${label} failed (exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`);
}
