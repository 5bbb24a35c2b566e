import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCollecting } from './child-process.js';
import { onCleanup } from './cleanup.js';

/**
 * The load generator when Debian's `wrk` is installed (`.ci/run` installs it): C, one thread,
 * about a tenth of autocannon's CPU per request, so the generator is not what limits the cheap
 * routes on two cores. Requests are written out raw, once, and sent in turn by
 * `wrk-requests.lua`, which also counts statuses and reports wrk's own CPU.
 */

const SCRIPT = join(import.meta.dirname, 'wrk-requests.lua');
/** USER_HZ, as in cpu-usage.ts. */
const TICKS_PER_SECOND = 100;

let available: boolean | undefined;

/** Whether `wrk` runs here (checked once). */
export function wrkAvailable(): boolean {
  available ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return available;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One HTTP/1.1 request as bytes on the wire (keep-alive is HTTP/1.1's default). */
export function rawRequest(host: string, { method, path, headers, body }: RawRequest): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

export interface WrkResult {
  /** Answers by status code, plus `errors` and `timeouts` when there were any. */
  statuses: Record<string, number>;
  total: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU wrk used, all threads, start to end. */
  cpuMs: number;
}

let dir: string | undefined;
let files = 0;

function requestFile(host: string, requests: RawRequest[]): string {
  if (dir === undefined) {
    const made = mkdtempSync(join(tmpdir(), `platform-bench-${process.pid}-wrk-`));
    onCleanup(`remove ${made}`, () => rmSync(made, { recursive: true, force: true }));
    dir = made;
  }
  const file = join(dir, `requests-${files++}.txt`);
  const chunks = requests.map((request) => {
    const raw = rawRequest(host, request);
    return `${Buffer.byteLength(raw)}\n${raw}`;
  });
  writeFileSync(file, chunks.join(''));
  return file;
}

/**
 * Runs wrk for `seconds` (whole seconds, at least one: wrk's unit) with `connections` keep-alive
 * connections on one thread, sending `requests` in turn.
 */
export async function runWrk(
  baseUrl: string,
  requests: RawRequest[],
  connections: number,
  seconds: number,
  timeoutSeconds: number,
): Promise<WrkResult> {
  const url = new URL(baseUrl);
  const file = requestFile(url.host, requests);
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    `--timeout`,
    `${timeoutSeconds}s`,
    '-s',
    SCRIPT,
    baseUrl,
    '--',
    file,
  ];
  const { code, output } = await runCollecting('wrk', args).finally(() => rmSync(file, { force: true }));
  const line = output.split('\n').find((text) => text.startsWith('WRK_RESULT '));
  if (code !== 0 || line === undefined)
    throw new Error(`wrk ${args.join(' ')} failed (exit ${code}):\n${output.trim()}`);
  const parsed = JSON.parse(line.slice('WRK_RESULT '.length)) as {
    statuses: Record<string, number>;
    durationUs: number;
    p50Us: number;
    p99Us: number;
    errors: { connect: number; read: number; write: number; timeout: number };
    cpuTicks: number;
  };
  const statuses = { ...parsed.statuses };
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  const socketErrors = parsed.errors.connect + parsed.errors.read + parsed.errors.write;
  if (socketErrors > 0) statuses.errors = socketErrors;
  if (parsed.errors.timeout > 0) statuses.timeouts = parsed.errors.timeout;
  return {
    statuses,
    total,
    seconds: parsed.durationUs / 1e6,
    p50Ms: parsed.p50Us / 1_000,
    p99Ms: parsed.p99Us / 1_000,
    cpuMs: (parsed.cpuTicks * 1_000) / TICKS_PER_SECOND,
  };
}
