import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { builtServer } from '../helpers/server-build.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a CLI run: only what a test gives, on top of what Node needs to run, so
 * no setting of the shell running the tests (DATABASE_URL, NODE_ENV…) leaks in.
 */
export function cliEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, LOG_LEVEL: 'warn', ...settings };
}

/** `platform-api <args>` as a child process, to its end: the built service, as `npx platform-api` runs it. */
export function cli(args: string[], settings: Record<string, string>, timeoutMs = 90_000): Promise<CliRun> {
  return new Promise((done, fail) => {
    const options = { cwd: ROOT, env: cliEnv(settings), timeout: timeoutMs };
    execFile(process.execPath, [builtServer(), ...args], options, (error, stdout, stderr) => {
      if (error?.killed) return fail(new Error(`platform-api ${args.join(' ')} timed out: ${stderr}`));
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

export interface Served {
  child: ChildProcessWithoutNullStreams;
  base: string;
  output(): { stdout: string; stderr: string };
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `platform-api serve` until it prints where it listens; rejects with its output if it exits first.
 * A test that expects the start to fail uses `cli(['serve'], …)` instead.
 */
export function serve(settings: Record<string, string>): Promise<Served> {
  const env = cliEnv({ PORT: '0', HOST: '127.0.0.1', ...settings });
  const child = spawn(process.execPath, [builtServer(), 'serve'], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    let started = false;
    const exitedEarly = (code: number | null) => reject(new Error(`serve exited ${code}: ${stderr}`));
    child.on('exit', exitedEarly);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (started) return;
      // The whole banner: the listening line is written together with what follows it.
      const base = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (base === undefined || !stdout.includes('API reference:')) return;
      started = true;
      // Only this listener: a test's own 'exit' listener, added later, must hear the exit.
      child.off('exit', exitedEarly);
      resolve({
        child,
        base,
        output: () => ({ stdout, stderr }),
        stop: () =>
          new Promise((stopped) => {
            if (child.exitCode !== null) return stopped(child.exitCode);
            child.once('exit', (code) => stopped(code));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
