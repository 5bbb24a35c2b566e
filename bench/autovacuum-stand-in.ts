import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { vacuumDueTables } from '../src/db/embedded-vacuum.js';
import type { Tables } from '../src/db/tables.js';

/**
 * What autovacuum would have done by now, done between the bench's phases. The PostgreSQL server
 * here runs with `autovacuum = off`. Without vacuum, the write floors' 16 k audited PATCHes grow
 * `audit_log` by a third, and the audit list's prepared statement is then planned again on every
 * request (docs/operations.md, "Vacuum"). A production server's autovacuum would have vacuumed
 * the table before that. The round is the service's own stand-in for PGlite
 * (src/db/embedded-vacuum.ts): the tables past autovacuum's thresholds, vacuumed or analyzed;
 * nothing when none is due.
 */
export async function vacuumAsAutovacuumWould(databaseUrl: string): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, application_name: 'bench autovacuum stand-in' });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  try {
    const round = await vacuumDueTables(db);
    return [
      ...round.vacuumed.map((name) => `${name} (vacuumed)`),
      ...round.analyzed.map((name) => `${name} (analyzed)`),
    ];
  } finally {
    await db.destroy();
  }
}
