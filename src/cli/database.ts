import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ensureDataDir, type Config } from '../config.js';
import { DataDirInUse, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrate, migrationStatus } from '../db/migrate.js';
import { pooledSessionProblems } from '../db/pooler.js';
import { asRead } from '../lib/split-pool.js';
import { CommandFailure, StartError } from './errors.js';

/**
 * PostgreSQL migrates on a connection of its own without the serving statement timeout: a
 * migration may legitimately run longer than any request should (an index on a big table).
 */
export async function migratePostgres(config: Config): Promise<string[]> {
  // Its advisory lock is held across statements: a session of its own, never a transaction pool's.
  const session = { ...config, databaseUrl: config.databaseSessionUrl, databasePooler: 'none' as const };
  const setting = config.databaseSessionUrl === config.databaseUrl ? 'DATABASE_URL' : 'DATABASE_SESSION_URL';
  const database = await connectPostgres(session, { statementTimeoutMs: 0, poolMax: 1 }, setting);
  try {
    return await migrate(database.db);
  } finally {
    await database.close();
  }
}

/**
 * The embedded database, locked to this process until it is closed (or the process ends):
 * PGlite opened by two processes on one directory is destroyed.
 */
export async function openEmbedded(config: Config, command: string): Promise<Database> {
  const lock = lockEmbedded(config, command);
  let database: Database;
  try {
    database = await openDatabase(config);
  } catch (error) {
    lock.release();
    const where = join(config.dataDir, 'pglite');
    throw new StartError('DATA_DIR', `cannot open the embedded database in ${where}: ${(error as Error).message}`);
  }
  return {
    ...database,
    async close() {
      await database.close();
      lock.release();
    },
  };
}

/** Refuses, creating nothing, a DATA_DIR that holds no embedded database. */
function requireEmbeddedDatabase(config: Config): void {
  const where = join(config.dataDir, 'pglite');
  // initdb writes PG_VERSION first thing; a cluster without it is no database.
  if (!existsSync(join(where, 'PG_VERSION'))) {
    throw new CommandFailure(
      `no embedded database in ${where} (DATA_DIR): nothing to read. "platform-api migrate" or serve makes one`,
    );
  }
}

function lockEmbedded(config: Config, command: string): DataDirLock {
  ensureDataDir(config.dataDir);
  try {
    return lockDataDir(config.dataDir, command);
  } catch (error) {
    if (error instanceof DataDirInUse) throw new StartError('DATA_DIR', error.message);
    throw new StartError('DATA_DIR', `cannot lock ${config.dataDir}: ${(error as Error).message}`);
  }
}

/**
 * A PostgreSQL pool that has answered once: a server that cannot be reached is named as
 * `setting`'s (DATABASE_URL's unless told). Behind a transaction pooler, the server sessions must
 * carry the settings no client can give them (`pooledSessionProblems`).
 */
export async function connectPostgres(
  config: Config,
  options: Parameters<typeof openDatabase>[1] = {},
  setting = 'DATABASE_URL',
): Promise<Database> {
  const database = await openDatabase(config, options);
  let problems: string[];
  try {
    await asRead(sql`SELECT 1`).execute(database.db);
    problems = config.databasePooler === 'transaction' ? await pooledSessionProblems(database.db) : [];
  } catch (error) {
    await database.close().catch(() => {});
    const address = databaseAddress(config.databaseUrl!);
    const message = (error as Error).message;
    // PgBouncer's answer to the statement timeout this service asks for at connection.
    const hint = /unsupported startup parameter/.test(message)
      ? ' (a pooler in transaction mode? set DATABASE_POOLER=transaction and DATABASE_SESSION_URL)'
      : '';
    throw new StartError(setting, `cannot use the database at ${address}: ${message}${hint}`);
  }
  if (problems.length > 0) {
    await database.close().catch(() => {});
    throw new StartError('DATABASE_POOLER', `the pooled sessions lack settings: ${problems.join('; ')}`);
  }
  return database;
}

/** Host, port and database name of a PostgreSQL URL: never its user or password. */
function databaseAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}${decodeURIComponent(url.pathname)}`;
}

/** The database an operator command reads or writes: PostgreSQL (one connection is enough) or the locked embedded one. */
export function openForCommand(config: Config, command: string, poolMax = 1): Promise<Database> {
  if (config.databaseUrl !== undefined) return connectPostgres(config, { poolMax });
  return openEmbedded(config, command);
}

/** What a command does with the database it opens. */
export interface DatabaseUse {
  /**
   * Reads only: a DATA_DIR without an embedded database is refused before anything is made there
   * (opening one would initdb a new database, which a reader must not do).
   */
  readOnly?: boolean;
  /**
   * Pending migrations: refused (the default: a command of this release on an older schema would
   * fail on a missing table halfway through), read as they are (`db status`), or applied first,
   * `onApplied` told which.
   */
  pending?: 'refuse' | 'read' | 'apply';
  onApplied?: (applied: string[]) => void;
  /** PostgreSQL connections (one unless the command runs a kernel). */
  poolMax?: number;
}

/**
 * Runs `work` on the database of an operator command, closed (and the embedded lock released)
 * whatever happens, after applying `use`'s rules.
 */
export async function withDatabase<T>(
  config: Config,
  command: string,
  work: (database: Database) => Promise<T>,
  use: DatabaseUse = {},
): Promise<T> {
  const pending = use.pending ?? 'refuse';
  if (use.readOnly && config.databaseUrl === undefined) requireEmbeddedDatabase(config);
  // PostgreSQL migrates on a connection of its own, without the statement timeout.
  if (pending === 'apply' && config.databaseUrl !== undefined) reportApplied(await migratePostgres(config), use);
  const database = await openForCommand(config, command, use.poolMax);
  try {
    if (pending === 'apply' && database.kind === 'pglite') reportApplied(await migrate(database.db), use);
    if (pending === 'refuse') {
      const { pending: files } = await migrationStatus(database.db);
      if (files.length > 0) {
        throw new CommandFailure(
          `the database has ${files.length} pending migration${files.length === 1 ? '' : 's'} ` +
            `(${files[0]!.name}${files.length > 1 ? ', …' : ''}): run "platform-api migrate" first`,
        );
      }
    }
    return await work(database);
  } finally {
    await database.close();
  }
}

function reportApplied(applied: string[], use: DatabaseUse): void {
  if (applied.length > 0) use.onApplied?.(applied);
}
