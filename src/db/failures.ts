import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { withShapeMark } from './prepared-shapes.js';
import { inStatementSpan } from './statement-spans.js';

/**
 * How a database call failed, when the failure is the database's or the pool's rather than the
 * query's. Decided once, where the call is made (the driver wrapper below), on errors the driver
 * raised for that call: an error from anywhere else (a client that aborted its upload, a socket
 * of an outside service) is never read as a database failure, whatever its code.
 *
 * - `failing`: the database did not answer or could not do the work (unreachable, connection
 *   lost, out of resources, shut down, a statement cancelled by its timeout, an internal error).
 * - `busy`: no session of this instance's pool came free within the connect budget: this
 *   instance is overloaded, the database itself may be fine.
 */
export type DatabaseFailureKind = 'failing' | 'busy';

const FAILURE_KIND = Symbol('platform-api.database-failure');
/** Marks every error the driver raised on a database call: its message and fields may hold the query's values. */
const FROM_DATABASE = Symbol('platform-api.database-error');

/**
 * SQLSTATE classes of a database that is failing rather than a query that is wrong: connection
 * exceptions (08), insufficient resources (53), operator intervention such as a statement timeout
 * or shutdown (57), system errors (58) and internal errors (XX).
 */
const FAILING_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
/** The socket's ways of saying the database did not answer. */
const FAILING_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);
/** node-postgres's words for a lost or never-made connection. */
const FAILING_MESSAGES = [
  /^Connection terminated/i,
  /^Client has encountered a connection error/i,
  /^Query read timeout$/,
];
/** pg-pool's word for a checkout that waited its whole budget in the queue: every session was busy. */
const POOL_QUEUE_TIMEOUT = /^timeout exceeded when trying to connect$/;

function kindOf(error: { code?: unknown; message?: unknown }): DatabaseFailureKind | undefined {
  const { code, message } = error;
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code) && FAILING_SQLSTATE_CLASSES.has(code.slice(0, 2))) return 'failing';
    if (FAILING_NETWORK_CODES.has(code)) return 'failing';
  }
  if (typeof message !== 'string') return undefined;
  if (POOL_QUEUE_TIMEOUT.test(message)) return 'busy';
  return FAILING_MESSAGES.some((pattern) => pattern.test(message)) ? 'failing' : undefined;
}

/**
 * Marks an error the driver raised on a database call as such, and with its failure kind if it
 * has one (unchanged otherwise: code, constraint, message stay for the code that reads them).
 */
export function classifyDriverError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null || FROM_DATABASE in error) return error;
  Object.defineProperty(error, FROM_DATABASE, { value: true, enumerable: false });
  const kind = kindOf(error as { code?: unknown; message?: unknown });
  if (kind !== undefined) Object.defineProperty(error, FAILURE_KIND, { value: kind, enumerable: false });
  return error;
}

/** Raised by the database driver on a database call (classified where the call was made). */
export function isDatabaseError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && FROM_DATABASE in error;
}

/**
 * A database error told without the values it was raised on (its message may quote them):
 * `database error 23505 on users (users_email_key)`. Undefined for any other error.
 */
export function databaseErrorSummary(error: unknown): string | undefined {
  if (!isDatabaseError(error)) return undefined;
  const { code, table, constraint } = error as { code?: unknown; table?: unknown; constraint?: unknown };
  const where = typeof table === 'string' ? ` on ${table}` : '';
  const named = typeof constraint === 'string' ? ` (${constraint})` : '';
  return `database error ${typeof code === 'string' ? code : 'without a code'}${where}${named}`;
}

/** The kind a database call's error was classified as where the call was made; undefined for any other error. */
export function databaseFailureOf(error: unknown): DatabaseFailureKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as { [FAILURE_KIND]?: DatabaseFailureKind })[FAILURE_KIND];
}

async function classified<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw classifyDriverError(error);
  }
}

/**
 * Every statement passes here: classified when it fails, in its span when traced
 * (statement-spans.ts), and marked when it is to be prepared by its shape (prepared-shapes.ts).
 */
class ClassifyingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const marked = withShapeMark(query);
    return inStatementSpan(marked, () => classified(this.inner.executeQuery<R>(marked)));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw classifyDriverError(error);
    }
  }
}

const innerOf = (connection: DatabaseConnection) => (connection as ClassifyingConnection).inner;
type Compile = QueryCompiler['compileQuery'];

/** The dialect's driver with every call's errors classified (`databaseFailureOf`). */
class ClassifyingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return classified(this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ClassifyingConnection(await classified(this.inner.acquireConnection()));
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return inStatementSpan('BEGIN', () => classified(this.inner.beginTransaction(innerOf(connection), settings)));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return inStatementSpan('COMMIT', () => classified(this.inner.commitTransaction(innerOf(connection))));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return inStatementSpan('ROLLBACK', () => classified(this.inner.rollbackTransaction(innerOf(connection))));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return classified(this.#required('savepoint')(innerOf(connection), name, compile));
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return classified(this.#required('rollbackToSavepoint')(innerOf(connection), name, compile));
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return classified(this.#required('releaseSavepoint')(innerOf(connection), name, compile));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  #required(name: 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint') {
    const method = this.inner[name];
    if (method === undefined) throw new Error(`the database driver has no ${name}`);
    return method.bind(this.inner);
  }
}

/** `dialect` with its driver's errors classified where each call is made. */
export function classifyingDialect(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ClassifyingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
