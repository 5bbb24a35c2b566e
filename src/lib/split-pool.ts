import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/** What a connection is borrowed for, judged by the first statement sent on it. */
export type StatementKind = 'read' | 'write';

/** Whitespace and comments ahead of a statement's first word (the prepared marker is one). */
const LEADING_NOISE = /^(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*(?:\n|$))*/;
const SELECT = /^select\b/i;
/**
 * Words that make a SELECT change something, lock rows or wait on a writer: data-modifying
 * parts, row locks (`FOR UPDATE`, `FOR SHARE`), notices, settings, sequences, advisory locks.
 */
const WRITING_WORDS =
  /\b(?:insert|update|delete|merge|share|pg_notify|set_config|nextval|setval|pg_(?:try_)?advisory\w*)\b/i;

/**
 * A plain SELECT is a read; everything else (a transaction's BEGIN, INSERT, UPDATE, a WITH that
 * may hold either, SET) is a write. A statement judged wrongly still runs correctly, since both
 * budgets open sessions on the same server: only the budget it waits in is the other one.
 */
export function statementKind(text: string): StatementKind {
  const start = LEADING_NOISE.exec(text)![0].length;
  const body = start === 0 ? text : text.slice(start);
  return SELECT.test(body) && !WRITING_WORDS.test(body) ? 'read' : 'write';
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
 * for write ones (bench/README.md, seventh session).
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

/**
 * The connection Kysely borrows: it takes a session from the read pool or the write pool only
 * when its first statement shows which (a transaction's BEGIN goes to the writes), and keeps it
 * for the rest of the loan. So a write stalled in its commit (a slow disk flush, a row lock)
 * holds write sessions only, and reads keep being answered from their own.
 */
class LazyClient implements PostgresPoolClient {
  readonly #pools: SplitPool;
  #taking: Promise<pg.PoolClient> | undefined;
  #client: pg.PoolClient | undefined;
  #released = false;

  constructor(pools: SplitPool) {
    this.#pools = pools;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: never): never;
  async query<R>(sql: string, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    this.#taking ??= this.#pools.poolFor(statementKind(sql)).connect();
    this.#client ??= await this.#taking;
    return this.#client.query(sql, parameters as unknown[]) as unknown as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#client !== undefined) this.#client.release();
    // A session still being taken goes back as soon as it arrives; a failed take holds none.
    else
      this.#taking?.then(
        (client) => client.release(),
        () => {},
      );
  }
}

/** Kysely's pool over two pg pools: one for reads, one for writes (see `LazyClient`). */
export class SplitPool implements PostgresPool {
  readonly reads: pg.Pool;
  readonly writes: pg.Pool;

  constructor(reads: pg.Pool, writes: pg.Pool) {
    this.reads = reads;
    this.writes = writes;
  }

  poolFor(kind: StatementKind): pg.Pool {
    return kind === 'read' ? this.reads : this.writes;
  }

  async connect(): Promise<PostgresPoolClient> {
    return new LazyClient(this);
  }

  async end(): Promise<void> {
    await Promise.all([this.reads.end(), this.writes.end()]);
  }
}
