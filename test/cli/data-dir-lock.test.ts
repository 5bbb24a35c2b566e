import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../helpers/data-dir.js';
import { serve, type Served } from './cli-process.js';
import { cliInProcess } from './command-line.js';

/**
 * The embedded database (PGlite) belongs to one process: `serve` holds DATA_DIR's lock for its
 * life, `migrate` while it migrates, and a second one is refused before it opens anything
 * (issue 28, item 16). Embedded only: with DATABASE_URL there is no DATA_DIR database to guard
 * (migrations beside running instances are serialised by an advisory lock instead). The servers
 * are processes; the commands beside them run in this process, another pid on the same host.
 */

const SECRET = 'data-dir-lock-secret-0123456789-abcdefghij';

describe('one process at a time on an embedded DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-lock-'));
  // Migrated once; every test below reuses it.
  const dataDir = join(dir, 'data');
  const lockDir = join(dataDir, 'lock');
  const settings = { DATA_DIR: dataDir, JWT_SECRET: SECRET };
  beforeAll(() => prepareDataDir(dataDir), 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The refusal a second process prints while `pid` holds DATA_DIR. */
  function refusal(pid: number, details: string): string {
    return (
      `Start failed: DATA_DIR: ${dataDir} is in use by platform-api serve (pid ${pid}${details}); ` +
      'the embedded database must never be opened by two processes. Stop that process first, ' +
      `or delete ${join(lockDir, `${pid}@${hostname()}`)} if it is no longer running\n`
    );
  }

  async function health(served: Served): Promise<unknown> {
    return (await fetch(`${served.base}/health`)).json();
  }

  const upToDate = { code: 0, stdout: 'Database is up to date.\n', stderr: '' };

  it('beside a running serve, migrate and a second serve are refused naming its pid; killed, its lock is taken over', async () => {
    const served = await serve(settings);
    const pid = served.child.pid!;
    try {
      const lockFile = `${pid}@${hostname()}`;
      expect(readdirSync(lockDir)).toEqual([lockFile]);
      const { since } = JSON.parse(readFileSync(join(lockDir, lockFile), 'utf8')) as { since: string };

      // One after another: two commands of one process hold one lock file between them.
      const migrated = await cliInProcess(['migrate'], settings);
      const second = await cliInProcess(['serve'], { ...settings, PORT: '0', HOST: '127.0.0.1' });
      expect(migrated).toEqual({ code: 1, stdout: '', stderr: refusal(pid, `, since ${since}`) });
      expect(second).toEqual({ code: 1, stdout: '', stderr: refusal(pid, `, since ${since}`) });
      // The refused ones left nothing behind; the server serves on, its database whole.
      expect(readdirSync(lockDir)).toEqual([lockFile]);
      expect(await health(served)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      await new Promise((resolve) => {
        if (served.child.exitCode !== null) return resolve(undefined);
        served.child.once('exit', resolve);
        served.child.kill('SIGKILL');
      });
    }
    // Killed: no exit handler ran, its file stays; its pid is gone, so migrate takes the lock over.
    expect(readdirSync(lockDir)).toEqual([`${pid}@${hostname()}`]);
    expect(await cliInProcess(['migrate'], settings)).toEqual(upToDate);
    expect(readdirSync(lockDir)).toEqual([]);
  }, 120_000);

  it('a server stopped with SIGTERM lets go of DATA_DIR: migrate then runs', async () => {
    const served = await serve(settings);
    try {
      expect(await health(served)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      expect(await served.stop()).toBe(0);
    }
    expect(readdirSync(lockDir)).toEqual([]);
    expect(await cliInProcess(['migrate'], settings)).toEqual(upToDate);
  }, 120_000);

  it('a lock of another host cannot be checked from here: refused, naming the host and the file', async () => {
    mkdirSync(lockDir, { recursive: true });
    const foreign = join(lockDir, '4242@other-host.example');
    writeFileSync(foreign, JSON.stringify({ command: 'serve', since: '2030-01-01T00:00:00.000Z' }));
    try {
      expect(await cliInProcess(['migrate'], settings)).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `Start failed: DATA_DIR: ${dataDir} is in use by platform-api serve ` +
          '(pid 4242 on host other-host.example, since 2030-01-01T00:00:00.000Z); ' +
          'the embedded database must never be opened by two processes. ' +
          `Stop that process first, or delete ${foreign} if it is no longer running\n`,
      });
      expect(readdirSync(lockDir)).toEqual(['4242@other-host.example']);
    } finally {
      rmSync(foreign);
    }
  }, 60_000);

  it('two serves started together never both serve', async () => {
    const starts = await Promise.allSettled([serve(settings), serve(settings)]);
    const serving = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    try {
      // At most one; both refusing is allowed (each saw the other), and says why.
      expect(serving.length).toBeLessThanOrEqual(1);
      for (const start of starts) {
        if (start.status === 'rejected') {
          expect(String(start.reason)).toMatch(/exited 1: Start failed: DATA_DIR: .* is in use by platform-api serve/);
        }
      }
      for (const served of serving) expect(await health(served)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      for (const served of serving) expect(await served.stop()).toBe(0);
    }
    expect(readdirSync(lockDir)).toEqual([]);
  }, 120_000);
});
