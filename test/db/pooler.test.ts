import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, migratePostgres } from '../../src/cli/database.js';
import { openPostgres, type Database } from '../../src/db/database.js';
import { pooledSessionProblems } from '../../src/db/pooler.js';
import { asRead } from '../../src/lib/split-pool.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';

/**
 * The service behind PgBouncer 1.18 in transaction mode (DATABASE_POOLER=transaction), the
 * issue's two failures first: a statement timeout asked for at startup is refused, and a named
 * statement outlives the transaction that prepared it on a server connection the pooler hands to
 * another client. PostgreSQL only: the embedded database runs in this process, with no pooler to
 * put in front of it.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('behind PgBouncer in transaction mode', () => {
  let testDatabase: TestDatabase;
  let url: string;
  /** One server connection: every client's transactions take turns on it. */
  let oneServerConnection: PgBouncer;
  /** No connect_query: the server sessions carry nothing the service needs. */
  let bare: PgBouncer;
  const opened: Database[] = [];
  const open = (options: Parameters<typeof openPostgres>[0]) => {
    const database = openPostgres(options);
    opened.push(database);
    return database;
  };
  /** The principal's marker (src/modules/users/principal-queries.ts): a named statement when allowed. */
  const marked = (db: Database['db']) =>
    asRead(sql<{ one: number }>`/* prepared: pooler_probe */ SELECT 1 AS one`).execute(db);

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    url = testDatabase.url!;
    oneServerConnection = await startPgBouncer({ serverUrl: url, poolSize: 1 });
    bare = await startPgBouncer({ serverUrl: url, connectQuery: null });
  });
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close()));
    await oneServerConnection?.close();
    await bare?.close();
    await testDatabase?.drop();
  });

  it('refuses the statement timeout as a startup parameter; with DATABASE_POOLER=transaction none is sent, the role or pooler gives it', async () => {
    const direct = open({ connectionString: oneServerConnection.via(url), poolMax: 1 });
    await expect(asRead(sql`SELECT 1`).execute(direct.db)).rejects.toThrow(
      /unsupported startup parameter: statement_timeout/,
    );

    const pooled = open({ connectionString: oneServerConnection.via(url), pooler: 'transaction', poolMax: 1 });
    const { rows } = await asRead(sql<{ statement_timeout: string }>`SHOW statement_timeout`).execute(pooled.db);
    expect(rows).toEqual([{ statement_timeout: '30s' }]);
  });

  it('named statements meet on a shared server connection (42P05); DATABASE_POOLER=transaction sends them unnamed', async () => {
    // No timeout asked for: only the named statements differ between the two.
    // Five sessions, three of them for reads: three clients of PgBouncer on its one server connection.
    const named = open({ connectionString: oneServerConnection.via(url), statementTimeoutMs: 0, poolMax: 5 });
    await named.warm();
    const threeAtOnce = await Promise.allSettled([marked(named.db), marked(named.db), marked(named.db)]);
    expect(threeAtOnce.map((outcome) => outcome.status)).toContain('rejected');
    const failure = threeAtOnce.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(failure.reason).toMatchObject({ code: '42P05' });

    const pooled = open({ connectionString: oneServerConnection.via(url), pooler: 'transaction', poolMax: 5 });
    await pooled.warm();
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all([marked(pooled.db), marked(pooled.db), marked(pooled.db)]);
      expect(answers.map(({ rows }) => rows)).toEqual([[{ one: 1 }], [{ one: 1 }], [{ one: 1 }]]);
    }
  });

  it('checks at start that the server sessions carry the statement timeout and the own-change notices', async () => {
    const given = open({ connectionString: oneServerConnection.via(url), pooler: 'transaction', poolMax: 1 });
    expect(await pooledSessionProblems(given.db)).toEqual([]);
    const missing = open({ connectionString: bare.via(url), pooler: 'transaction', poolMax: 1 });
    expect(await pooledSessionProblems(missing.db)).toEqual([
      expect.stringContaining("SET statement_timeout = '30s'"),
      expect.stringContaining('SET platform_api.own_commit_notices = on'),
    ]);

    const config = testConfig({ databaseUrl: bare.via(url), databaseSessionUrl: url, databasePooler: 'transaction' });
    await expect(connectPostgres(config)).rejects.toThrow(/^DATABASE_POOLER: the pooled sessions lack settings: /);
    const withSettings = { ...config, databaseUrl: oneServerConnection.via(url) };
    const served = await connectPostgres(withSettings);
    await served.close();
  });

  it('names DATABASE_POOLER when DATABASE_URL is a transaction pooler and the service was not told', async () => {
    await expect(connectPostgres(testConfig({ databaseUrl: bare.via(url) }))).rejects.toThrow(
      /^DATABASE_URL: .*unsupported startup parameter.*set DATABASE_POOLER=transaction and DATABASE_SESSION_URL/,
    );
  });

  it('migrates on DATABASE_SESSION_URL, which may be a pool in session mode: no startup parameter, its timeout lifted by SET', async () => {
    const sessions = await startPgBouncer({ serverUrl: url, poolMode: 'session' });
    try {
      const config = testConfig({
        databaseUrl: oneServerConnection.via(url),
        databaseSessionUrl: sessions.via(url),
        databasePooler: 'transaction',
      });
      expect(await migratePostgres(config)).toEqual([]);
      expect(sessions.log()).toMatch(/login attempt: db=\w+ user=\w+/);
    } finally {
      await sessions.close();
    }
  });
});
