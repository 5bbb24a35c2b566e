import pg from 'pg';
import { DUE_TABLES_SQL } from '../src/db/embedded-vacuum.js';

/**
 * What autovacuum would have done by now, done between the bench's phases. The PostgreSQL server
 * here runs with `autovacuum = off`. Without vacuum, the write floors' 16 k audited PATCHes grow
 * `audit_log` by a third, and the audit list's prepared statement is then planned again on every
 * request (docs/operations.md, "Vacuum"). A production server's autovacuum would have vacuumed
 * the table before that. The tables past autovacuum's own thresholds are vacuumed (or analyzed),
 * as the service does for PGlite (src/db/embedded-vacuum.ts); nothing is done when none is due.
 */
export async function vacuumDueTables(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench autovacuum stand-in' });
  await client.connect();
  try {
    const due = (await client.query<{ name: string; needs_vacuum: boolean }>(DUE_TABLES_SQL)).rows;
    for (const table of due) {
      const name = client.escapeIdentifier(table.name);
      await client.query(table.needs_vacuum ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
    }
    return due.map((table) => `${table.name} (${table.needs_vacuum ? 'vacuumed' : 'analyzed'})`);
  } finally {
    await client.end();
  }
}
