import { sql } from 'kysely';
import type { Kernel } from '../../src/kernel/kernel.js';
import { asRead } from '../../src/lib/split-pool.js';

/**
 * Waits for the event a test expects instead of sleeping a guessed time: `condition` is polled
 * until it holds, and the wait fails, naming `what`, once `timeoutMs` has passed without it.
 * (`eventually` in app.ts does the same for a check that throws until it passes.)
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { timeoutMs = 5_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`waited ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Until the clock reads a later millisecond than `instant`: a row written from now on gets a
 * later timestamp than one written at `instant`, so the two sort, and split by bounds, apart.
 */
export function clockPast(instant: Date): Promise<void> {
  return waitFor(() => Date.now() > instant.getTime(), `the clock to pass ${instant.toISOString()}`, { intervalMs: 1 });
}

type Db = Kernel['db'];

/** The database session `db` runs on (a transaction's): the one PostgreSQL names as holding its locks. */
export async function sessionPid(db: Db): Promise<number> {
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
  return Number(rows[0]!.pid);
}

/**
 * Until a statement of another session has waited at least `waitedMs` on a lock the session
 * `holder` holds, by PostgreSQL's own account (`pg_blocking_pids`, and the waiting statement's
 * start): a concurrent write has reached what the test keeps locked. PostgreSQL only: on the
 * embedded database a second caller waits for its one connection, which shows nowhere.
 */
export function lockWaiterOn(db: Db, holder: number, what: string, waitedMs = 0): Promise<void> {
  return waitFor(async () => {
    const { rows } = await asRead(
      sql<{ waited_ms: number | null }>`
        SELECT max(extract(epoch FROM clock_timestamp() - query_start) * 1000) AS waited_ms
          FROM pg_stat_activity
         WHERE ${holder} = ANY(pg_blocking_pids(pid))`,
    ).execute(db);
    const waited = rows[0]?.waited_ms;
    return waited !== null && waited !== undefined && Number(waited) >= waitedMs;
  }, what);
}

/**
 * `db` for a caller under watch, and whether it has sent a statement yet: on the embedded
 * database, while a transaction holds the one connection, a caller that has sent one waits for
 * it (the sign `lockWaiterOn` reads on PostgreSQL shows nowhere there).
 */
export function sendingNoticed(db: Db): { db: Db; sent: () => boolean } {
  let sent = false;
  return {
    db: db.withPlugin({
      transformQuery: ({ node }) => {
        sent = true;
        return node;
      },
      transformResult: async ({ result }) => result,
    }),
    sent: () => sent,
  };
}
