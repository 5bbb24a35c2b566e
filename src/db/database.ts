import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { join } from 'node:path';
import { classifyingDialect } from './failures.js';
import { PGliteDialect } from './pglite-dialect.js';
import { PgListener, type ListenHandlers } from './pg-listener.js';
import { SplitPool, poolBudget } from './split-pool.js';
import type { Tables } from './tables.js';

export type { ListenHandlers };

export type DatabaseKind = 'pglite' | 'postgres';

export interface ListenOptions {
  /**
   * Also hear this process's own notices at the writer's COMMIT, before the write's promise
   * resolves: a cache invalidated this way never answers this instance's next request with what
   * the write replaced (read-your-writes). Other instances hear it a moment later, as always.
   */
  atOwnCommit?: boolean;
}

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Kysely<Tables>;
  listen(channel: string, handlers: ListenHandlers, options?: ListenOptions): Promise<() => Promise<void>>;
  /**
   * Opens every pooled session now (PostgreSQL; the embedded database has nothing to open), so
   * an instance's first requests do not queue behind new sessions being forked and authenticated.
   */
  warm(): Promise<void>;
  close(): Promise<void>;
}

const INT8_OID = 20;
const DATE_OID = 1082;

/** Counts and identities come back as numbers; dates stay 'YYYY-MM-DD' strings (no timezone shift). */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  connectionString: string;
  /** Sessions this instance opens for its queries, reads and writes together (`poolBudget`). */
  poolMax?: number;
  /** Server-side budget of one statement: past it PostgreSQL cancels it (SQLSTATE 57014). 0: none (migrations). */
  statementTimeoutMs?: number;
  /** Budget of opening one connection, and of waiting for a free one in the pool. */
  connectTimeoutMs?: number;
}

/** Defaults for serving: no request waits on the database for longer than these. */
export const STATEMENT_TIMEOUT_MS = 30_000;
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * How much longer than the statement timeout the client waits for an answer. The server cancels
 * a slow statement itself; this catches an answer that never arrives (a network that holds or
 * drops packets, a server that hangs), which no server-side timeout can see.
 */
const ANSWER_GRACE_MS = 1_000;

/** `/* prepared: <name> *\/` opening a query's text: run it as a named prepared statement. */
const PREPARED_MARKER = /^\/\* prepared: ([a-z][a-z0-9_]{0,62}) \*\//;

/**
 * A query marked as prepared (the principal lookup every signed-in request makes) becomes a
 * named statement: each connection parses and plans it once, not on every request (planning was
 * three quarters of its database time). Only for fixed texts with explicit columns, so a
 * migration adding columns cannot change the result of a cached plan.
 */
function asPrepared(args: unknown[]): unknown[] {
  const [text, values, ...rest] = args;
  if (typeof text !== 'string') return args;
  const name = PREPARED_MARKER.exec(text)?.[1];
  return name === undefined ? args : [{ name, text, values }, ...rest];
}

/** SQLSTATE of the NOTICE that tells a session of its own change (migration 0041). */
const OWN_NOTICE_CODE = 'PA001';
/** Asks migration 0041's triggers to tell this session of its own changes. */
const ASK_FOR_OWN_NOTICES = 'SET platform_api.own_commit_notices = on';

/**
 * Handlers of the changes a pooled connection made itself, heard at the end of the writer's
 * transaction, before the writer's query resolves. A dedicated listener connection hears them
 * only a moment later, when this instance may already be answering the writer's next request.
 */
class OwnCommitNotices {
  readonly #handlers = new Map<string, Set<(payload: string) => void>>();

  get wanted(): boolean {
    return this.#handlers.size > 0;
  }

  add(channel: string, handler: (payload: string) => void): () => void {
    const handlers = this.#handlers.get(channel) ?? new Set();
    handlers.add(handler);
    this.#handlers.set(channel, handlers);
    return () => handlers.delete(handler);
  }

  deliver(channel: string, payload: string): void {
    this.#handlers.get(channel)?.forEach((handler) => handler(payload));
  }
}

/** The transaction status each ReadyForQuery carries: idle, in a transaction, in a failed one. */
type TransactionStatus = 'I' | 'T' | 'E';

/**
 * A pooled client whose connection is thrown away when an answer is overdue: the statement may
 * still be running or its answer still on the way, and a client reused meanwhile would queue
 * every later query behind it (or wait forever on a connection that is gone).
 *
 * It also hands on the notices of its own changes (`OwnCommitNotices`). They arrive as NOTICEs
 * while the changing statement runs, so they are held until the server reports the session out
 * of its transaction: committed, or rolled back (a needless forget, which is harmless). Not
 * LISTEN: every listening session is woken for every session's NOTIFY.
 */
class PooledClient extends pg.Client {
  readonly #notices: OwnCommitNotices | undefined;
  #askedForOwnNotices = false;
  #status: TransactionStatus = 'I';
  readonly #held: Array<[channel: string, payload: string]> = [];

  constructor(config?: string | (pg.ClientConfig & { ownCommitNotices?: OwnCommitNotices })) {
    super(config);
    this.#notices = typeof config === 'object' ? config.ownCommitNotices : undefined;
    // A connection lost while the client is lent out between two queries (inside a transaction,
    // say) is an 'error' event nobody listens to: Node would make it an uncaught exception and
    // end the process. The client is unusable from then on; its next query fails (a 503) and
    // the pool drops it when it comes back.
    this.on('error', () => {});
    this.on('notice', (notice) => {
      if (notice.code === OWN_NOTICE_CODE && notice.message !== undefined)
        this.#held.push([notice.message, notice.detail ?? '']);
    });
    // Runs before the finished query's promise resolves (that goes through a microtask), so its
    // caller's next step already finds the change forgotten.
    (
      this as unknown as {
        connection: { on(event: 'readyForQuery', listener: (message: { status: TransactionStatus }) => void): void };
      }
    ).connection.on('readyForQuery', ({ status }) => {
      this.#status = status;
      if (status === 'I' && this.#held.length > 0) {
        for (const [channel, payload] of this.#held.splice(0)) this.#notices?.deliver(channel, payload);
      }
    });
  }

  /** Once per connection, outside a transaction (whose rollback would undo it), ahead of the next query. */
  #askForOwnNotices(): void {
    if (this.#askedForOwnNotices || this.#status !== 'I' || !this.#notices?.wanted) return;
    this.#askedForOwnNotices = true;
    (pg.Client.prototype.query as (text: string) => Promise<unknown>).call(this, ASK_FOR_OWN_NOTICES).catch(() => {
      this.#askedForOwnNotices = false;
    });
  }

  override query(...args: unknown[]): never {
    this.#askForOwnNotices();
    const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, asPrepared(args));
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        // The driver wrapper (failures.ts) reads this error as a database that did not answer.
        if (error instanceof Error && error.message === 'Query read timeout') this.#discard();
        throw error;
      }) as never;
    }
    return result as never;
  }

  #discard(): void {
    // end() marks the client as ending at once, so the pool drops it when Kysely hands it back
    // (right after this error); destroying the socket frees it without waiting for the server.
    this.end().catch(() => {});
    (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/** Takes `size` sessions of the pool at once (opening them) and hands them back; the first failure is thrown. */
async function openEverySession(pool: pg.Pool, size: number): Promise<void> {
  const taken = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
  for (const result of taken) if (result.status === 'fulfilled') result.value.release();
  const failure = taken.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}

export function openPostgres({
  connectionString,
  poolMax = 10,
  statementTimeoutMs = STATEMENT_TIMEOUT_MS,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
}: PostgresOptions): Database {
  const ownCommitNotices = new OwnCommitNotices();
  /** `name`: the sessions' application_name, so pg_stat_activity tells the pools apart (the URL's own wins). */
  const openPool = (max: number, name: string): pg.Pool => {
    const pool = new pg.Pool({
      connectionString,
      application_name: name,
      // pg.Pool hands its whole config to each PooledClient it makes.
      ...({ ownCommitNotices } as pg.PoolConfig),
      max,
      // A fixed-size pool: a session once open stays (pg closes one after 10 s idle by default),
      // so a burst after a lull is not held up opening sessions while requests queue for them.
      min: max,
      types: pgTypes as pg.CustomTypesConfig,
      Client: PooledClient,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      ...(statementTimeoutMs > 0
        ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + ANSWER_GRACE_MS }
        : {}),
    });
    // An idle client losing its server must not crash the process; the next checkout reconnects.
    pool.on('error', () => {});
    return pool;
  };
  // Reads and writes wait for sessions of their own: a commit stalled on the disk holds writes only.
  const budget = poolBudget(poolMax);
  const pools =
    budget === undefined
      ? [{ pool: openPool(poolMax, 'platform-api'), size: poolMax }]
      : [
          { pool: openPool(budget.reads, 'platform-api reads'), size: budget.reads },
          { pool: openPool(budget.writes, 'platform-api writes'), size: budget.writes },
        ];
  const pool = pools.length === 1 ? pools[0]!.pool : new SplitPool(pools[0]!.pool, pools[1]!.pool);
  const db = new Kysely<Tables>({ dialect: classifyingDialect(new PostgresDialect({ pool })) });
  const listeners: PgListener[] = [];
  return {
    kind: 'postgres',
    db,
    async listen(channel, handlers, options = {}) {
      const listener = new PgListener(connectionString, channel, handlers, connectTimeoutMs);
      listeners.push(listener);
      await listener.start();
      // Heard twice then (at commit and from the listener): subscribers must be idempotent.
      const stopOwn = options.atOwnCommit ? ownCommitNotices.add(channel, handlers.onMessage) : () => {};
      return async () => {
        stopOwn();
        await listener.stop();
      };
    },
    async warm() {
      await Promise.all(pools.map(({ pool: sessions, size }) => openEverySession(sessions, size)));
    },
    async close() {
      await Promise.all(listeners.map((listener) => listener.stop()));
      await db.destroy();
    },
  };
}

/** Wraps an open PGlite instance; `ownsInstance` decides whether close() closes PGlite too. */
export function wrapPGlite(pglite: PGlite, ownsInstance = true): Database {
  const db = new Kysely<Tables>({ dialect: classifyingDialect(new PGliteDialect(pglite)) });
  return {
    kind: 'pglite',
    db,
    async listen(channel, handlers) {
      // In-process: nothing can be missed, so onResync never fires; and PGlite hands notices to
      // listeners while it finishes the COMMIT, so `atOwnCommit` holds without doing anything.
      return pglite.listen(channel, (payload) => handlers.onMessage(payload));
    },
    async warm() {},
    async close() {
      await db.destroy();
      if (ownsInstance) await pglite.close();
    },
  };
}

export const pgliteParsers = {
  [INT8_OID]: (value: string) => Number(value),
  [DATE_OID]: (value: string) => value,
};

export async function openPGlite(dataDir: string): Promise<Database> {
  const pglite = await PGlite.create(join(dataDir, 'pglite'), { parsers: pgliteParsers });
  return wrapPGlite(pglite);
}

/** `options` tune PostgreSQL only (the embedded database runs in this process: nothing to time out). */
export async function openDatabase(
  config: { databaseUrl: string | undefined; dataDir: string; databasePoolSize?: number },
  options: Pick<PostgresOptions, 'statementTimeoutMs' | 'poolMax'> = {},
): Promise<Database> {
  return config.databaseUrl !== undefined
    ? openPostgres({ connectionString: config.databaseUrl, poolMax: config.databasePoolSize, ...options })
    : openPGlite(config.dataDir);
}
