import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * Keeps two processes from opening the embedded database (PGlite) in one DATA_DIR at once: each
 * would write the same files as if alone, and the database would be lost. `serve` holds the lock
 * for its whole life, `migrate` while it migrates.
 *
 * Each holder announces itself with a file of its own, `DATA_DIR/lock/<pid>@<host>`, then looks
 * for others. Of two processes starting together, at least one sees the other (each writes before
 * it looks), so they can never both go on; at worst both refuse and are started again. A single
 * lock file taken over when stale cannot promise that: two processes replacing the same stale
 * file can each believe the lock is theirs.
 *
 * A holder whose process is gone (killed, crashed, the machine restarted) leaves its file behind;
 * on the same host its pid no longer runs, and the file is removed. A file of another host (a
 * shared volume) cannot be checked from here and is left to the operator.
 */
export interface DataDirLock {
  release(): void;
}

export class DataDirInUse extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly file: string,
    readonly dataDir: string,
  ) {
    const who = holder.command === undefined ? 'platform-api' : `platform-api ${holder.command}`;
    const since = holder.since === undefined ? '' : `, since ${holder.since}`;
    const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
    super(
      `${dataDir} is in use by ${who} (pid ${holder.pid}${where}${since}); ` +
        'the embedded database must never be opened by two processes. Stop that process first, ' +
        `or delete ${file} if it is no longer running`,
    );
    this.name = 'DataDirInUse';
  }
}

export interface LockHolder {
  pid: number;
  host: string;
  command: string | undefined;
  since: string | undefined;
}

const HOLDER_FILE = /^(\d+)@(.+)$/;

/** Takes the lock of `dataDir` for `command` (made if missing), or throws DataDirInUse. */
export function lockDataDir(dataDir: string, command: string): DataDirLock {
  const directory = join(dataDir, 'lock');
  mkdirSync(directory, { recursive: true });
  const host = hostname();
  const mine = join(directory, `${process.pid}@${host}`);
  // A file of this name is a leftover of an earlier process that had this pid (a container
  // restarted): this process is the one that runs now, so it is simply rewritten.
  writeFileSync(mine, JSON.stringify({ command, since: new Date().toISOString() }), { mode: 0o600 });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    unlinkQuietly(mine);
  };
  try {
    for (const name of readdirSync(directory)) {
      const file = join(directory, name);
      if (file === mine) continue;
      const holder = holderOf(name, file);
      if (holder === undefined) continue;
      if (holder.host === host && !running(holder.pid)) {
        unlinkQuietly(file);
        continue;
      }
      throw new DataDirInUse(holder, file, dataDir);
    }
  } catch (error) {
    release();
    throw error;
  }
  // Let go on every way out of the process that still runs code (exit, a fatal error's exit).
  process.once('exit', release);
  return {
    release() {
      process.off('exit', release);
      release();
    },
  };
}

function holderOf(name: string, file: string): LockHolder | undefined {
  const match = HOLDER_FILE.exec(name);
  if (match === null) return undefined;
  let details: { command?: string; since?: string } = {};
  try {
    details = JSON.parse(readFileSync(file, 'utf8')) as typeof details;
  } catch {
    // Being written, or already gone: the name alone says who holds it.
  }
  return { pid: Number(match[1]), host: match[2]!, command: details.command, since: details.since };
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already removed (by its owner, or by another process clearing the same stale file).
  }
}
