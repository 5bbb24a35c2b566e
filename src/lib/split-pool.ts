import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  KyselyPlugin,
  OperationNode,
  QueryCompiler,
  QueryId,
  QueryResult,
  RawBuilder,
  SelectQueryNode,
  TransactionSettings,
} from 'kysely';

/** What a connection is borrowed for, judged by the first statement sent on it. */
export type StatementKind = 'read' | 'write';

/** Raw queries their callers declared reads (`asRead`), by the id Kysely gives each query. */
const declaredReads = new WeakSet<QueryId>();

const READ_INTENT: KyselyPlugin = {
  transformQuery({ node, queryId }) {
    declaredReads.add(queryId);
    return node;
  },
  async transformResult({ result }) {
    return result;
  },
};

/**
 * A raw query (`sql\`…\``) its caller declares a plain read: no row lock, no change, no
 * setting, sequence, notice or advisory lock. Raw SQL is opaque, so without this it is a write.
 */
export function asRead<O>(query: RawBuilder<O>): RawBuilder<O> {
  return query.withPlugin(READ_INTENT);
}

/** Row locks: a SELECT holding one waits on writers and makes them wait. */
const LOCKING_MODIFIERS = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare']);

/** A SELECT built with Kysely that locks no rows and whose WITH parts are such SELECTs too. */
function isPlainSelect(node: OperationNode): boolean {
  if (node.kind !== 'SelectQueryNode') return false;
  const select = node as SelectQueryNode;
  const modifiers = [...(select.frontModifiers ?? []), ...(select.endModifiers ?? [])];
  // A raw modifier (`modifyEnd(sql\`…\`)`) may be a lock: not judged, so not a read.
  if (modifiers.some(({ modifier, rawModifier }) => rawModifier !== undefined || LOCKING_MODIFIERS.has(modifier ?? '')))
    return false;
  return (select.with?.expressions ?? []).every(({ expression }) => isPlainSelect(expression));
}

/**
 * Judged on the query's structure as Kysely built it, never on its text: a plain SELECT, or a raw
 * query declared a read (`asRead`), is a read; everything else (INSERT, UPDATE, DELETE, a SELECT
 * that locks rows or has a data-modifying WITH part, raw SQL not declared) is a write. A
 * transaction's connection is a write's (`SplitDriver.beginTransaction`). Expressions inside a
 * SELECT are not read: one that calls `pg_notify`, `nextval` or an advisory lock belongs in a
 * transaction or in raw SQL. A statement judged wrongly still runs correctly, since both budgets
 * open sessions on the same server: only the budget it waits in is the other one.
 */
export function statementKind(query: CompiledQuery): StatementKind {
  return declaredReads.has(query.queryId) || isPlainSelect(query.query) ? 'read' : 'write';
}

/** How one instance's connections divide between reads and writes. */
export interface PoolBudget {
  reads: number;
  writes: number;
}

/**
 * Share of the connections kept for writes. Writes are about a tenth of the soak's requests, but
 * each holds its session through its commit's WAL flush, and edits of one row queue on its lock
 * while holding theirs. With 4 of 10, the soak's slow requests waited for read sessions, seldom
 * for write ones (docs/decisions/0023-split-read-and-write-pools.md).
 */
const WRITE_SHARE = 0.4;

/**
 * The pool size split into a read budget and a write budget, together exactly `size`. A single
 * connection cannot be split (migrations run on one): `undefined`, one pool for everything.
 */
export function poolBudget(size: number): PoolBudget | undefined {
  if (size < 2) return undefined;
  const writes = Math.max(1, Math.round(size * WRITE_SHARE));
  return { reads: size - writes, writes };
}

interface Taken {
  driver: Driver;
  connection: DatabaseConnection;
}

/**
 * The connection Kysely borrows: it takes one from the read driver or the write driver only when
 * its first statement shows which (a transaction goes to the writes), and keeps it for the rest
 * of the loan. So a write stalled in its commit (a slow disk flush, a row lock) holds write
 * sessions only, and reads keep being answered from their own.
 */
class LazyConnection implements DatabaseConnection {
  readonly #drivers: SplitDriver;
  #taking: Promise<Taken> | undefined;

  constructor(drivers: SplitDriver) {
    this.#drivers = drivers;
  }

  /** The connection of this loan, taken for `kind` if none is yet. */
  take(kind: StatementKind): Promise<Taken> {
    this.#taking ??= (async () => {
      const driver = kind === 'read' ? this.#drivers.reads : this.#drivers.writes;
      return { driver, connection: await driver.acquireConnection() };
    })();
    return this.#taking;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { connection } = await (this.#taking ?? this.take(statementKind(query)));
    return connection.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const { connection } = await (this.#taking ?? this.take(statementKind(query)));
    yield* connection.streamQuery<R>(query, chunkSize);
  }

  /** Gives back what the loan took; a failed take holds nothing. */
  async release(): Promise<void> {
    const taking = this.#taking;
    this.#taking = undefined;
    const taken = await taking?.catch(() => undefined);
    if (taken !== undefined) await taken.driver.releaseConnection(taken.connection);
  }
}

type Compile = QueryCompiler['compileQuery'];
type SavepointStep = 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint';

/** Kysely's driver over two drivers, one for reads and one for writes (see `LazyConnection`). */
export class SplitDriver implements Driver {
  constructor(
    readonly reads: Driver,
    readonly writes: Driver,
  ) {}

  async init(): Promise<void> {
    await Promise.all([this.reads.init(), this.writes.init()]);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LazyConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const taken = await (connection as LazyConnection).take('write');
    await taken.driver.beginTransaction(taken.connection, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const taken = await (connection as LazyConnection).take('write');
    await taken.driver.commitTransaction(taken.connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const taken = await (connection as LazyConnection).take('write');
    await taken.driver.rollbackTransaction(taken.connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.#savepointStep('savepoint', connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.#savepointStep('rollbackToSavepoint', connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.#savepointStep('releaseSavepoint', connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return (connection as LazyConnection).release();
  }

  async destroy(): Promise<void> {
    await Promise.all([this.reads.destroy(), this.writes.destroy()]);
  }

  /** Savepoints live inside a transaction, so on a connection already taken for it. */
  async #savepointStep(step: SavepointStep, connection: DatabaseConnection, name: string, compile: Compile) {
    const { driver, connection: taken } = await (connection as LazyConnection).take('write');
    const run = driver[step];
    if (run === undefined) throw new Error(`the database driver has no ${step}`);
    await run.call(driver, taken, name, compile);
  }
}

/** `writes` with its driver split: reads go to the connections of `reads` (both dialects of one database). */
export function splitDialect(reads: Dialect, writes: Dialect): Dialect {
  return {
    createAdapter: () => writes.createAdapter(),
    createDriver: () => new SplitDriver(reads.createDriver(), writes.createDriver()),
    createQueryCompiler: () => writes.createQueryCompiler(),
    createIntrospector: (db) => writes.createIntrospector(db),
  };
}
