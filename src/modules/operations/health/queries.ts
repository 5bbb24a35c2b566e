import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { asRead } from '../../../lib/split-pool.js';

/** The cheapest statement the database must answer: whether it is reachable at all (a read: the reads' pool). */
export async function pingDatabase(db: Kysely<Tables>): Promise<void> {
  await asRead(sql`SELECT 1`).execute(db);
}
