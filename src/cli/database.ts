import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ensureDataDir, type Config } from '../config.js';
import { DataDirInUse, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrate, migrationStatus } from '../db/migrate.js';
import { asRead } from '../lib/split-pool.js';
import { CommandFailure, StartError } from './errors.js';

/**
 * PostgreSQL migrates on a connection of its own without the serving statement timeout: a
 * migration may legitimately run longer than any request should (an index on a big table).
 */
export async function migratePostgres(config: Config): Promise<string[]> {
  const database = await connectPostgres(config, { statementTimeoutMs: 0, poolMax: 1 });
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

/**
 * Refuses, creating nothing, a DATA_DIR that holds no embedded database: opening one there would
 * make it (initdb), which a command that only reads must not do.
 */
export function requireEmbeddedDatabase(config: Config): void {
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

/** A PostgreSQL pool that has answered once: a server that cannot be reached is named as DATABASE_URL's. */
export async function connectPostgres(
  config: Config,
  options: Parameters<typeof openDatabase>[1] = {},
): Promise<Database> {
  const database = await openDatabase(config, options);
  try {
    await asRead(sql`SELECT 1`).execute(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    const address = databaseAddress(config.databaseUrl!);
    throw new StartError('DATABASE_URL', `cannot use the database at ${address}: ${(error as Error).message}`);
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

/**
 * Runs `work` on the database of an operator command, closed (and the embedded lock released)
 * whatever happens. Unless `anySchema`, a database with pending migrations is refused: a command
 * of this release reading an older schema would fail on a missing table halfway through.
 * PostgreSQL gets `poolMax` connections (one unless the command runs a kernel).
 */
export async function withDatabase<T>(
  config: Config,
  command: string,
  work: (database: Database) => Promise<T>,
  options: { anySchema?: boolean; poolMax?: number } = {},
): Promise<T> {
  const database = await openForCommand(config, command, options.poolMax);
  try {
    if (!options.anySchema) {
      const { pending } = await migrationStatus(database.db);
      if (pending.length > 0) {
        throw new CommandFailure(
          `the database has ${pending.length} pending migration${pending.length === 1 ? '' : 's'} ` +
            `(${pending[0]!.name}${pending.length > 1 ? ', …' : ''}): run "platform-api migrate" first`,
        );
      }
    }
    return await work(database);
  } finally {
    await database.close();
  }
}
