import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { asRead } from '../../../lib/split-pool.js';

/** The cheapest statement the database must answer: whether it is reachable at all (a read: the reads' pool). */
export async function pingDatabase(db: Kysely<Tables>): Promise<void> {
  await asRead(sql`SELECT 1`).execute(db);
}

/** Names of the migrations this database has applied (the migrator's own table). */
export async function appliedMigrationNames(db: Kysely<Tables>): Promise<Set<string>> {
  const rows = await asRead(sql<{ name: string }>`SELECT name FROM schema_migrations`).execute(db);
  return new Set(rows.rows.map((row) => row.name));
}
