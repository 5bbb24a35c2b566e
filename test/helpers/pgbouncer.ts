import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from './ports.js';
import { waitFor } from './waiting.js';

/** Debian's package (`.ci/run` installs it when missing). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * What the service's pooled sessions take from the server side behind a transaction pooler
 * (src/db/pooler.ts): here given by PgBouncer's `connect_query`, one of the documented ways
 * (docs/operations.md), so the test database and its role stay as they are.
 */
export const SERVICE_SESSION_SETTINGS = 'SET statement_timeout = 30000; SET platform_api.own_commit_notices = on';

export interface PgBouncer {
  port: number;
  /** `url` (a database on the server behind) reached through PgBouncer instead. */
  via(url: string): string;
  /** What PgBouncer wrote to stderr so far (its log). */
  log(): string;
  close(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Any URL of the PostgreSQL server behind: its host, port, user and password are used. */
  serverUrl: string;
  poolMode?: 'transaction' | 'session';
  /** Server connections per database and user (`default_pool_size`). */
  poolSize?: number;
  /** Run on each new server connection; null: none. */
  connectQuery?: string | null;
}

/**
 * PgBouncer in front of the test server, on a free loopback port, every database name passed
 * through (`* =`), its ini and userlist in a temporary directory. It refuses to run as root
 * ("PgBouncer should not run as root"): as root it is started with `-u postgres`.
 */
export async function startPgBouncer({
  serverUrl,
  poolMode = 'transaction',
  poolSize = 20,
  connectQuery = SERVICE_SESSION_SETTINGS,
}: PgBouncerOptions): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer (.ci/run does)`);
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  // PgBouncer's connection strings have no escapes: a value holding a quote cannot be given.
  const quoted = (value: string) => {
    if (value.includes("'")) throw new Error(`a quote in a PgBouncer connection string value: ${value}`);
    return `'${value}'`;
  };
  const target = [
    `host=${server.hostname || '127.0.0.1'}`,
    `port=${server.port || '5432'}`,
    ...(password ? [`password=${quoted(password)}`] : []),
    ...(connectQuery ? [`connect_query=${quoted(connectQuery)}`] : []),
  ].join(' ');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = ${target}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
  const asRoot = process.getuid?.() === 0;
  // The postgres user reads the files it is switched to.
  if (asRoot) chmodSync(dir, 0o755);
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${log}`);
        return accepts(port);
      },
      () => `pgbouncer to listen on ${port}: ${log}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    via(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    log: () => log,
    close: stop,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
