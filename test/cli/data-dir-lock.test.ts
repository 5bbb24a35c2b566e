import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, serve, type Served } from './cli-process.js';

/**
 * The embedded database (PGlite) belongs to one process: `serve` holds DATA_DIR's lock for its
 * life, `migrate` while it migrates, and a second one is refused before it opens anything
 * (issue 28, item 16). Embedded only: with DATABASE_URL there is no DATA_DIR database to guard
 * (migrations beside running instances are serialised by an advisory lock instead).
 */

const SECRET = 'data-dir-lock-secret-0123456789-abcdefghij';

describe('one process at a time on an embedded DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-lock-'));
  // Missing at first: the first serve makes it and migrates it; every test below reuses it.
  const dataDir = join(dir, 'data');
  const lockDir = join(dataDir, 'lock');
  const settings = { DATA_DIR: dataDir, JWT_SECRET: SECRET };
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

  it('beside a running serve, migrate and a second serve are refused naming its pid; it keeps serving', async () => {
    const served = await serve(settings);
    try {
      const pid = served.child.pid!;
      const lockFile = `${pid}@${hostname()}`;
      expect(readdirSync(lockDir)).toEqual([lockFile]);
      const { since } = JSON.parse(readFileSync(join(lockDir, lockFile), 'utf8')) as { since: string };

      const [migrated, second] = await Promise.all([
        cli(['migrate'], settings),
        cli(['serve'], { ...settings, PORT: '0', HOST: '127.0.0.1' }),
      ]);
      expect(migrated).toEqual({ code: 1, stdout: '', stderr: refusal(pid, `, since ${since}`) });
      expect(second).toEqual({ code: 1, stdout: '', stderr: refusal(pid, `, since ${since}`) });
      // The refused ones left nothing behind; the server serves on, its database whole.
      expect(readdirSync(lockDir)).toEqual([lockFile]);
      expect(await health(served)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // A stopped server lets go: migrate now runs.
    expect(readdirSync(lockDir)).toEqual([]);
    expect(await cli(['migrate'], settings)).toEqual({ code: 0, stdout: 'Database is up to date.\n', stderr: '' });
  }, 120_000);

  it('the lock of a killed server (its pid gone) is taken over', async () => {
    const served = await serve(settings);
    const pid = served.child.pid!;
    await new Promise((resolve) => {
      served.child.once('exit', resolve);
      served.child.kill('SIGKILL');
    });
    // Killed: no exit handler ran, its file stays.
    expect(readdirSync(lockDir)).toEqual([`${pid}@${hostname()}`]);

    expect(await cli(['migrate'], settings)).toEqual({ code: 0, stdout: 'Database is up to date.\n', stderr: '' });
    expect(readdirSync(lockDir)).toEqual([]);
    const again = await serve(settings);
    try {
      expect(await health(again)).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 120_000);

  it('a lock of another host cannot be checked from here: refused, naming the host and the file', async () => {
    mkdirSync(lockDir, { recursive: true });
    const foreign = join(lockDir, '4242@other-host.example');
    writeFileSync(foreign, JSON.stringify({ command: 'serve', since: '2030-01-01T00:00:00.000Z' }));
    try {
      expect(await cli(['migrate'], settings)).toEqual({
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
