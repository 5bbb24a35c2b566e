import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { asRead } from '../lib/split-pool.js';
import type { Tables } from './tables.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** One key for every instance: two services starting together apply each file once. */
const MIGRATION_LOCK_KEY = 7_311_993_001;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      return { name: file, sql: text, checksum: createHash('sha256').update(text).digest('hex') };
    });
}

export class MigrationError extends Error {}

/**
 * Applies every pending migration in order, each in its own transaction, under a session
 * advisory lock held on one connection for the whole run (a session of its own: never through
 * a transaction pooler, DATABASE_SESSION_URL). Returns the names it applied.
 */
export async function migrate(db: Kysely<Tables>, files = readMigrations()): Promise<string[]> {
  return db.connection().execute(async (connection) => {
    // No budget (a role's statement_timeout applies to this session too): an index on a big table
    // may take longer than any request should, and the lock waits for another migrator's whole run.
    await sql`SET statement_timeout = 0`.execute(connection);
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(connection);
    try {
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`.execute(connection);
      const applied = new Map(
        (await connection.selectFrom('schema_migrations').select(['name', 'checksum']).execute()).map((row) => [
          row.name,
          row.checksum,
        ]),
      );
      const done: string[] = [];
      for (const file of files) {
        const checksum = applied.get(file.name);
        if (checksum !== undefined) {
          if (checksum !== file.checksum) {
            throw new MigrationError(
              `migration ${file.name} changed after it was applied; add a new migration instead`,
            );
          }
          continue;
        }
        await connection.transaction().execute(async (trx) => {
          await sql.raw(file.sql).execute(trx);
          await trx.insertInto('schema_migrations').values({ name: file.name, checksum: file.checksum }).execute();
        });
        done.push(file.name);
      }
      return done;
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`.execute(connection);
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}

export interface AppliedMigration {
  name: string;
  appliedAt: Date;
  /** False when the file of this name now holds other SQL than was applied (migrate refuses to go on). */
  unchanged: boolean;
}

export interface MigrationStatus {
  /** Migrations recorded in schema_migrations whose file this release has, in order. */
  applied: AppliedMigration[];
  /** Files of this release not applied yet, in the order migrate would apply them. */
  pending: MigrationFile[];
  /** Recorded migrations this release has no file for: the database was migrated by a newer release. */
  unknown: Array<{ name: string; appliedAt: Date }>;
}

/** Names of the migrations this database has applied, in one read (readiness compares them with the files). */
export async function appliedMigrationNames(db: Kysely<Tables>): Promise<Set<string>> {
  const rows = await asRead(sql<{ name: string }>`SELECT name FROM schema_migrations`).execute(db);
  return new Set(rows.rows.map((row) => row.name));
}

/**
 * What `migrate` would find: the applied, the pending and the unknown migrations. Reads only,
 * takes no lock, and creates nothing (a database never migrated has every file pending).
 */
export async function migrationStatus(db: Kysely<Tables>, files = readMigrations()): Promise<MigrationStatus> {
  const { rows } = await asRead(
    sql<{ present: boolean }>`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`,
  ).execute(db);
  const recorded = rows[0]?.present
    ? await db.selectFrom('schema_migrations').select(['name', 'checksum', 'applied_at']).orderBy('name').execute()
    : [];
  const byName = new Map(recorded.map((row) => [row.name, row]));
  const known = new Set(files.map((file) => file.name));
  const applied: AppliedMigration[] = [];
  const pending: MigrationFile[] = [];
  for (const file of files) {
    const row = byName.get(file.name);
    if (row === undefined) pending.push(file);
    else
      applied.push({ name: file.name, appliedAt: new Date(row.applied_at), unchanged: row.checksum === file.checksum });
  }
  const unknown = recorded
    .filter((row) => !known.has(row.name))
    .map((row) => ({ name: row.name, appliedAt: new Date(row.applied_at) }));
  return { applied, pending, unknown };
}
