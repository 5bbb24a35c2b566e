import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parseTimestamptz } from './timestamptz-text.js';
import { join } from 'node:path';
import type { DatabasePooler } from '../config.js';
import { OwnCommitNotices, pooledClientClass } from '../lib/pg-client.js';
import { openEverySession, openFixedPool } from '../lib/pg-pool.js';
import { poolBudget, splitDialect } from '../lib/split-pool.js';
import { classifyingDialect } from './failures.js';
import { PGliteDialect } from './pglite-dialect.js';
import { PgListener, type ListenHandlers } from './pg-listener.js';
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

/** One connection pool's sessions at this moment (metrics). */
export interface PoolUsage {
  /** `reads` and `writes` (split pools), or `all` (a pool of one connection for everything). */
  pool: 'reads' | 'writes' | 'all';
  /** Sessions lent to a query or transaction now. */
  inUse: number;
  /** Open sessions waiting in the pool. */
  idle: number;
  /** Queries waiting for a session to be free. */
  waiting: number;
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
  /**
   * The pools' sessions now (PostgreSQL). The embedded database has no pool: one session in
   * this process, whose queue PGlite keeps to itself; it reports none.
   */
  poolUsage(): PoolUsage[];
  close(): Promise<void>;
}

const INT8_OID = 20;
const DATE_OID = 1082;
const TIMESTAMPTZ_OID = 1184;

/**
 * Counts and identities come back as numbers; dates stay 'YYYY-MM-DD' strings (no timezone shift);
 * instants are read by the fast parser of PostgreSQL's own text (timestamptz-text.ts).
 */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  /** The queries' pool: PostgreSQL, or a pooler in front of it (`pooler`). */
  connectionString: string;
  /** What needs a session of its own (LISTEN); `connectionString` when absent. */
  sessionConnectionString?: string;
  /**
   * `transaction`: `connectionString` is a pooler in transaction mode (PgBouncer), which refuses
   * startup parameters and hands server connections to other clients between transactions: no
   * statement timeout at startup, no named statements, no session settings (decision 0102).
   */
  pooler?: DatabasePooler;
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

/** SQLSTATE of the NOTICE that tells a session of its own change (migration 0041). */
const OWN_NOTICE_CODE = 'PA001';
/** Asks migration 0041's triggers to tell this session of its own changes. */
const ASK_FOR_OWN_NOTICES = 'SET platform_api.own_commit_notices = on';

export function openPostgres({
  connectionString,
  sessionConnectionString = connectionString,
  pooler = 'none',
  poolMax = 10,
  statementTimeoutMs = STATEMENT_TIMEOUT_MS,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
}: PostgresOptions): Database {
  const ownCommitNotices = new OwnCommitNotices();
  const sessions = pooler === 'none';
  const Client = pooledClientClass({
    ownCommitNotices,
    ownNoticeCode: OWN_NOTICE_CODE,
    askForOwnNotices: sessions ? ASK_FOR_OWN_NOTICES : undefined,
    namedStatements: sessions,
  });
  const types = pgTypes as pg.CustomTypesConfig;
  const openPool = (size: number, applicationName: string, name: PoolUsage['pool']) => ({
    name,
    pool: openFixedPool({
      connectionString,
      applicationName,
      size,
      statementTimeoutMs,
      statementTimeoutAtStartup: sessions,
      connectTimeoutMs,
      types,
      Client,
    }),
    size,
  });
  // Reads and writes wait for sessions of their own: a commit stalled on the disk holds writes only.
  const budget = poolBudget(poolMax);
  const pools =
    budget === undefined
      ? [openPool(poolMax, 'platform-api', 'all')]
      : [
          openPool(budget.reads, 'platform-api reads', 'reads'),
          openPool(budget.writes, 'platform-api writes', 'writes'),
        ];
  const dialect =
    pools.length === 1
      ? new PostgresDialect({ pool: pools[0]!.pool })
      : splitDialect(new PostgresDialect({ pool: pools[0]!.pool }), new PostgresDialect({ pool: pools[1]!.pool }));
  const db = new Kysely<Tables>({ dialect: classifyingDialect(dialect) });
  const listeners: PgListener[] = [];
  return {
    kind: 'postgres',
    db,
    async listen(channel, handlers, options = {}) {
      const listener = new PgListener(sessionConnectionString, channel, handlers, connectTimeoutMs);
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
      await Promise.all(pools.map(({ pool, size }) => openEverySession(pool, size)));
    },
    poolUsage() {
      return pools.map(({ name, pool }) => ({
        pool: name,
        inUse: pool.totalCount - pool.idleCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
      }));
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
    poolUsage: () => [],
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
  // Loaded here: a start on PostgreSQL does not pay for the embedded database's module.
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create(join(dataDir, 'pglite'), { parsers: pgliteParsers });
  return wrapPGlite(pglite);
}

/** `options` tune PostgreSQL only (the embedded database runs in this process: nothing to time out). */
export async function openDatabase(
  config: {
    databaseUrl: string | undefined;
    databaseSessionUrl?: string | undefined;
    databasePooler?: DatabasePooler;
    dataDir: string;
    databasePoolSize?: number;
  },
  options: Pick<PostgresOptions, 'statementTimeoutMs' | 'poolMax'> = {},
): Promise<Database> {
  return config.databaseUrl !== undefined
    ? openPostgres({
        connectionString: config.databaseUrl,
        sessionConnectionString: config.databaseSessionUrl,
        pooler: config.databasePooler,
        poolMax: config.databasePoolSize,
        ...options,
      })
    : openPGlite(config.dataDir);
}
