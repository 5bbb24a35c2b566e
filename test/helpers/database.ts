import pg from 'pg';
import { inject } from 'vitest';
import { openPostgres, wrapPGlite, type Database } from '../../src/db/database.js';
import { openEmbeddedCopy } from './embedded-copy.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { adminUrl, databaseUrlFor } from './postgres-urls.js';

export interface TestDatabase {
  database: Database;
  /** PostgreSQL URL of this file's database (PostgreSQL runs only). */
  url: string | null;
  /**
   * Another handle on the same database, as a second service instance would have. `pooled`: its
   * queries go through PgBouncer in transaction mode (started for this database on first use,
   * stopped by `drop`), its LISTEN straight to the server, as DATABASE_POOLER=transaction with
   * DATABASE_SESSION_URL has it. On PGlite there is no pooler to put between: the same handle.
   */
  openAnother(options?: { pooled?: boolean }): Promise<Database>;
  /** The embedded database's data dir as it is now, a dump `createTestDatabase` can start from; null on PostgreSQL. */
  dump: (() => Promise<Buffer>) | null;
  drop(): Promise<void>;
}

/** Sessions a test app opens on PostgreSQL, reads and writes together. */
export const TEST_POOL_SIZE = 5;
/**
 * How long a test app's query waits for a pooled session. Production waits 5 s, then refuses
 * with 503 (`CONNECT_TIMEOUT_MS`). CI shares two cores between two suites, and a file that
 * queues 200 writes behind one user's lock could pass that budget. The tests that need the
 * refusal (test/reliability/postgres-faults.test.ts) open their own pool with the service's budget.
 */
const TEST_CONNECT_TIMEOUT_MS = 30_000;

let counter = 0;

/**
 * A fresh, migrated database for one test file (or one test): a clone, never shared. `fromDump`: a
 * copy of that embedded database instead (a `dump()` taken earlier in the run).
 */
export async function createTestDatabase(fromDump?: string): Promise<TestDatabase> {
  const template = inject('pgTemplate');
  const testUrl = process.env.TEST_DATABASE_URL;
  if (fromDump !== undefined && template) throw new Error('an embedded dump cannot start a PostgreSQL database');
  if (template && testUrl) {
    const name = `${template.replace('tmpl', 'f')}_${process.pid}_${++counter}`;
    const admin = new pg.Client({ connectionString: adminUrl(testUrl) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = databaseUrlFor(testUrl, name);
    const opened: Database[] = [];
    let pooler: Promise<PgBouncer> | undefined;
    const open = async (pooled = false) => {
      pooler ??= pooled ? startPgBouncer({ serverUrl: url }) : undefined;
      const database = pooled
        ? openPostgres({
            connectionString: (await pooler!).via(url),
            sessionConnectionString: url,
            pooler: 'transaction',
            poolMax: TEST_POOL_SIZE,
            connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS,
          })
        : openPostgres({ connectionString: url, poolMax: TEST_POOL_SIZE, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS });
      opened.push(database);
      return database;
    };
    const database = await open();
    return {
      database,
      url,
      openAnother: (options = {}) => open(options.pooled),
      dump: null,
      async drop() {
        await Promise.all(opened.map((d) => d.close()));
        await (await pooler)?.close();
        const dropper = new pg.Client({ connectionString: adminUrl(testUrl) });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  const pglite = await openEmbeddedCopy(fromDump ?? inject('pgliteDump'), { keep: fromDump === undefined });
  const database = wrapPGlite(pglite);
  return {
    database,
    url: null,
    // One embedded database belongs to one process: a second instance shares its connection
    // (and its connection lock), closing nothing of it.
    openAnother: async () => ({ ...database, close: async () => {} }),
    dump: async () => Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()),
    drop: () => database.close(),
  };
}
