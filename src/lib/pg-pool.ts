import pg from 'pg';

/**
 * How much longer than the statement timeout the client waits for an answer. The server cancels
 * a slow statement itself; this catches an answer that never arrives (a network that holds or
 * drops packets, a server that hangs), which no server-side timeout can see.
 */
const ANSWER_GRACE_MS = 1_000;

export interface FixedPoolOptions {
  connectionString: string;
  /** The sessions' application_name, so pg_stat_activity tells pools apart (the URL's own wins). */
  applicationName: string;
  /** Sessions opened and kept. */
  size: number;
  /** Server-side budget of one statement: past it PostgreSQL cancels it (SQLSTATE 57014). 0: none. */
  statementTimeoutMs: number;
  /**
   * Whether the sessions ask for `statementTimeoutMs` as a startup parameter. Not behind a
   * transaction pooler, which refuses it (PgBouncer: "unsupported startup parameter"): the
   * database role carries the server's budget there, and the client's answer budget stays.
   */
  statementTimeoutAtStartup: boolean;
  /** Budget of opening one connection, and of waiting for a free one in the pool. */
  connectTimeoutMs: number;
  types: pg.CustomTypesConfig;
  Client: typeof pg.Client;
}

/**
 * A pg pool of a fixed size: a session once open stays (pg closes one after 10 s idle by default,
 * unless the pool's `min` keeps it), so a burst after a lull is not held up opening sessions while
 * requests queue for them.
 */
export function openFixedPool(options: FixedPoolOptions): pg.Pool {
  const { statementTimeoutMs, statementTimeoutAtStartup } = options;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    application_name: options.applicationName,
    max: options.size,
    min: options.size,
    types: options.types,
    Client: options.Client,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    ...(statementTimeoutMs > 0 ? { query_timeout: statementTimeoutMs + ANSWER_GRACE_MS } : {}),
    ...(statementTimeoutMs > 0 && statementTimeoutAtStartup ? { statement_timeout: statementTimeoutMs } : {}),
  });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  return pool;
}

/** Takes `size` sessions of the pool at once (opening them) and hands them back; the first failure is thrown. */
export async function openEverySession(pool: pg.Pool, size: number): Promise<void> {
  const taken = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
  for (const result of taken) if (result.status === 'fulfilled') result.value.release();
  const failure = taken.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}
