import { sql } from 'kysely';

/**
 * A CTE named `async` that has the statement's transaction commit without waiting for the WAL
 * flush (`synchronous_commit` off for this transaction alone). For writes a crash may forget
 * because the next request makes them again (a sighting): every commit that notifies holds
 * PostgreSQL's database-wide notify lock for as long as its flush takes
 * (docs/decisions/0013-sightings-spread-and-asynchronous.md). A CTE that nothing reads does not
 * run, so the statement reads it (`FROM async`, `EXISTS (SELECT 1 FROM async)`).
 */
export const ASYNCHRONOUS_COMMIT = sql`async AS (SELECT set_config('synchronous_commit', 'off', true))`;
