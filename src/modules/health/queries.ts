import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';

/** The cheapest statement the database must answer: whether it is reachable at all. */
export async function pingDatabase(db: Kysely<Tables>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
