import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Tables } from '../../src/db/tables.js';
import { asRead, poolBudget, splitDialect, statementKind } from '../../src/lib/split-pool.js';

/** Compiles queries as PostgreSQL would get them, with no database behind. */
const db = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const userId = '7f1c6b6e-3c1a-4b8e-9a34-6a1f2f5d9e01';

describe('statementKind: which budget a connection is taken from, judged on the query Kysely built', () => {
  it.each([
    ['a select', db.selectFrom('users').select(['id', 'email']).where('id', '=', userId)],
    ['a select distinct', db.selectFrom('users').select('status').distinct()],
    [
      'a select with a subquery',
      db.selectFrom('users').select('id').where('id', 'in', db.selectFrom('user_roles').select('user_id')),
    ],
    [
      'a select with a select in its WITH',
      db
        .with('page', (w) => w.selectFrom('users').select('id'))
        .selectFrom('page')
        .selectAll(),
    ],
    ['a select of raw expressions', db.selectNoFrom(sql<number>`pg_backend_pid()`.as('pid'))],
    ['a raw query declared a read', asRead(sql`SELECT 1`)],
    ['a prepared raw query declared a read', asRead(sql`/* prepared: principal_v2 */ SELECT u.id FROM users u`)],
  ])('%s reads', (_name, query) => {
    expect(statementKind(query.compile(db))).toBe('read');
  });

  it.each([
    ['an insert', db.insertInto('users').values({ id: userId } as never)],
    ['an update', db.updateTable('users').set({ display_name: 'x' }).where('id', '=', userId)],
    ['a delete', db.deleteFrom('revoked_sessions').where('user_id', '=', userId)],
    ['a select for update', db.selectFrom('users').selectAll().where('id', '=', userId).forUpdate()],
    ['a select for no key update', db.selectFrom('users').select('id').forNoKeyUpdate()],
    ['a select for share', db.selectFrom('roles').select('id').forShare()],
    ['a select for key share', db.selectFrom('roles').select('id').forKeyShare()],
    ['a select with a raw end modifier', db.selectFrom('roles').select('id').modifyEnd(sql`for update skip locked`)],
    [
      'a select whose WITH changes rows',
      db
        .with('gone', (w) => w.deleteFrom('revoked_sessions').where('user_id', '=', userId).returning('session_id'))
        .selectFrom('gone')
        .selectAll(),
    ],
    ['a raw query nobody declared', sql`SELECT 1`],
    ['a raw write', sql`UPDATE users SET last_seen_at = now()`],
  ])('%s writes', (_name, query) => {
    expect(statementKind(query.compile(db))).toBe('write');
  });

  it("writes for Kysely's own statements (a transaction's begin)", () => {
    expect(statementKind(CompiledQuery.raw('begin'))).toBe('write');
  });
});

describe('poolBudget: the pool size split between reads and writes', () => {
  it.each([
    [2, { reads: 1, writes: 1 }],
    [3, { reads: 2, writes: 1 }],
    [10, { reads: 6, writes: 4 }],
    [30, { reads: 18, writes: 12 }],
    [1000, { reads: 600, writes: 400 }],
  ])('%i sessions: %o, together the whole size', (size, budget) => {
    expect(poolBudget(size)).toEqual(budget);
    expect(budget.reads + budget.writes).toBe(size);
  });

  it('a single session is not split: one pool for everything', () => {
    expect(poolBudget(1)).toBeUndefined();
  });
});

/** A driver that hands out numbered connections and writes down what is done with them. */
class RecordingDriver implements Driver {
  readonly log: string[] = [];
  #opened = 0;
  failAcquire = false;

  constructor(readonly name: string) {}

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.failAcquire) throw new Error(`${this.name}: timeout exceeded when trying to connect`);
    const id = `${this.name}#${++this.#opened}`;
    this.log.push(`acquire ${id}`);
    const log = this.log;
    return {
      id,
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        log.push(`${id}: ${query.sql}`);
        return { rows: [] };
      },
      async *streamQuery() {},
    } as DatabaseConnection;
  }

  async beginTransaction(connection: DatabaseConnection) {
    this.log.push(`${(connection as unknown as { id: string }).id}: begin`);
  }

  async commitTransaction(connection: DatabaseConnection) {
    this.log.push(`${(connection as unknown as { id: string }).id}: commit`);
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    this.log.push(`${(connection as unknown as { id: string }).id}: rollback`);
  }

  async savepoint(connection: DatabaseConnection, name: string) {
    this.log.push(`${(connection as unknown as { id: string }).id}: savepoint ${name}`);
  }

  async releaseConnection(connection: DatabaseConnection) {
    this.log.push(`release ${(connection as unknown as { id: string }).id}`);
  }

  async destroy() {
    this.log.push('destroy');
  }
}

describe('SplitDriver', () => {
  const dialectOf = (driver: Driver): Dialect => ({
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  });

  function splitDatabase() {
    const reads = new RecordingDriver('reads');
    const writes = new RecordingDriver('writes');
    const split = new Kysely<Tables>({ dialect: splitDialect(dialectOf(reads), dialectOf(writes)) });
    return { split, reads, writes };
  }

  it('takes a read connection for a plain select and a write connection for anything else, one per loan', async () => {
    const { split, reads, writes } = splitDatabase();
    await split.selectFrom('users').select('id').execute();
    await split.updateTable('users').set({ display_name: 'x' }).execute();
    await sql`SELECT 1`.execute(split);
    await asRead(sql`SELECT 2`).execute(split);
    expect(reads.log).toEqual([
      'acquire reads#1',
      'reads#1: select "id" from "users"',
      'release reads#1',
      'acquire reads#2',
      'reads#2: SELECT 2',
      'release reads#2',
    ]);
    expect(writes.log).toEqual([
      'acquire writes#1',
      'writes#1: update "users" set "display_name" = $1',
      'release writes#1',
      'acquire writes#2',
      'writes#2: SELECT 1',
      'release writes#2',
    ]);
  });

  it('runs a transaction, its reads and savepoints included, on one write connection', async () => {
    const { split, reads, writes } = splitDatabase();
    await split.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').execute();
      await trx.updateTable('users').set({ display_name: 'x' }).execute();
    });
    const trx = await split.startTransaction().execute();
    const savepoint = await trx.savepoint('before').execute();
    await savepoint.rollback().execute();
    expect(reads.log).toEqual([]);
    expect(writes.log).toEqual([
      'acquire writes#1',
      'writes#1: begin',
      'writes#1: select "id" from "users"',
      'writes#1: update "users" set "display_name" = $1',
      'writes#1: commit',
      'release writes#1',
      'acquire writes#2',
      'writes#2: begin',
      'writes#2: savepoint before',
      'writes#2: rollback',
      'release writes#2',
    ]);
  });

  it('keeps the connection its first statement took for the whole loan', async () => {
    const { split, reads, writes } = splitDatabase();
    await split.connection().execute(async (session) => {
      await session.selectFrom('users').select('id').execute();
      await session.deleteFrom('revoked_sessions').execute();
    });
    await split.connection().execute(async () => {});
    expect(reads.log).toEqual([
      'acquire reads#1',
      'reads#1: select "id" from "users"',
      'reads#1: delete from "revoked_sessions"',
      'release reads#1',
    ]);
    expect(writes.log).toEqual([]);
  });

  it("a connection that could not be taken fails the loan's queries and holds nothing", async () => {
    const { split, reads } = splitDatabase();
    reads.failAcquire = true;
    await expect(split.selectFrom('users').select('id').execute()).rejects.toThrow('timeout exceeded');
    reads.failAcquire = false;
    await split.selectFrom('users').select('id').execute();
    expect(reads.log).toEqual(['acquire reads#1', 'reads#1: select "id" from "users"', 'release reads#1']);
  });

  it('destroys both drivers', async () => {
    const { split, reads, writes } = splitDatabase();
    await split.selectFrom('users').select('id').execute();
    await split.destroy();
    expect([reads.log.at(-1), writes.log]).toEqual(['destroy', ['destroy']]);
  });
});
