import { createHash } from 'node:crypto';
import pg from 'pg';

/** `/* prepared: <name> *\/` opening a query's text: run it as a named prepared statement. */
const PREPARED_MARKER = /^\/\* prepared: ([a-z][a-z0-9_]{0,62}) \*\//;

/**
 * `/* prepared by shape: <name> *\/` opening a query's text: a statement built with optional
 * filters, so its text differs by which are present. Each text becomes a named statement of its
 * own, `<name>_<12 hex digits of the text's SHA-1>`: a text never changes under a name (pg
 * refuses that), and one text is parsed and planned once per connection.
 */
const SHAPE_MARKER = /^\/\* prepared by shape: ([a-z][a-z0-9_]{0,49}) \*\//;

/**
 * The most named statements one connection keeps. A list's filters make a bounded number of
 * shapes (one per combination of the filters present and the sort order; the busiest few in
 * practice); past this, a new name runs unnamed, as every statement did before, rather than grow
 * the session's memory without bound.
 */
export const MAX_NAMED_PER_CONNECTION = 64;

/**
 * Names of the texts prepared by shape, by text: a staff list sends one of a few texts on every
 * request, and hashing its kilobyte or two each time was 2 % of the list's CPU (bench profile).
 * Bounded like the statements a connection keeps; past it a name is hashed each time again.
 */
const shapeNames = new Map<string, string>();
const SHAPE_NAMES_KEPT = 1_000;

/** The statement name of a text marked as prepared or prepared by shape; undefined for any other text. */
export function preparedNameOf(text: string): string | undefined {
  const known = shapeNames.get(text);
  if (known !== undefined) return known;
  const fixed = PREPARED_MARKER.exec(text)?.[1];
  if (fixed !== undefined) return fixed;
  const shape = SHAPE_MARKER.exec(text)?.[1];
  if (shape === undefined) return undefined;
  const name = `${shape}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
  if (shapeNames.size < SHAPE_NAMES_KEPT) shapeNames.set(text, name);
  return name;
}

/** pg's error for an answer that did not arrive within `query_timeout`. */
const ANSWER_OVERDUE = 'Query read timeout';

/**
 * Handlers of the changes a pooled connection made itself, heard at the end of the writer's
 * transaction, before the writer's query resolves. A dedicated listener connection hears them
 * only a moment later, when this instance may already be answering the writer's next request.
 */
export class OwnCommitNotices {
  readonly #handlers = new Map<string, Set<(payload: string) => void>>();

  get wanted(): boolean {
    return this.#handlers.size > 0;
  }

  add(channel: string, handler: (payload: string) => void): () => void {
    const handlers = this.#handlers.get(channel) ?? new Set();
    handlers.add(handler);
    this.#handlers.set(channel, handlers);
    return () => handlers.delete(handler);
  }

  deliver(channel: string, payload: string): void {
    for (const handler of this.#handlers.get(channel) ?? []) handler(payload);
  }
}

export interface PooledClientOptions {
  /** Where the session's notices of its own changes go. */
  ownCommitNotices: OwnCommitNotices;
  /** The SQLSTATE of those notices: the channel in the message, the payload in the detail. */
  ownNoticeCode: string;
  /**
   * The statement that asks a session for them, sent once per connection while someone listens.
   * Undefined behind a transaction pooler: a session setting would stay on whichever server
   * connection ran it, so the database role carries it instead (decision 0102).
   */
  askForOwnNotices: string | undefined;
  /**
   * Run queries marked as prepared as named statements. Off behind a transaction pooler: a named
   * statement lives on one server connection, which the pooler hands to other clients between
   * transactions (PgBouncer 1.18: 42P05 "prepared statement already exists", or 26000 missing).
   */
  namedStatements: boolean;
}

/**
 * The `Client` class of a pg pool (pg-pool's `Client` option). Its clients:
 *
 * - run a query marked as prepared as a named statement (`preparedNameOf`), unless `namedStatements` is off;
 * - end their connection when an answer is overdue: the statement may still be running or its
 *   answer still on the way, and a client reused meanwhile would queue every later query behind
 *   it (or wait forever on a connection that is gone). pg's `end()` destroys the socket at once
 *   when a query is still under way, so the server is not waited for (test/lib/pg-client.test.ts);
 * - hand on the notices of their own changes (`OwnCommitNotices`). They arrive as NOTICEs while
 *   the changing statement runs, so they are held until a query ends with the server reporting
 *   the session out of its transaction (`getTransactionStatus()` 'I'): committed, or rolled back
 *   (a needless forget, which is harmless). Delivered before that query's promise resolves, so
 *   its caller's next step already finds the change forgotten. Not LISTEN: every listening
 *   session is woken for every session's NOTIFY.
 */
export function pooledClientClass({
  ownCommitNotices,
  ownNoticeCode,
  askForOwnNotices,
  namedStatements,
}: PooledClientOptions): typeof pg.Client {
  const runQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

  return class PooledClient extends pg.Client {
    #askedForOwnNotices = false;
    readonly #held: Array<[channel: string, payload: string]> = [];
    /** The named statements this connection has been asked to prepare. */
    readonly #named = new Set<string>();

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection lost while the client is lent out between two queries (inside a
      // transaction, say) is an 'error' event nobody listens to: Node would make it an uncaught
      // exception and end the process. The client is unusable from then on; its next query
      // fails (a 503) and the pool drops it when it comes back.
      this.on('error', () => {});
      this.on('notice', (notice) => {
        if (notice.code === ownNoticeCode && notice.message !== undefined)
          this.#held.push([notice.message, notice.detail ?? '']);
      });
    }

    /** Once per connection, outside a transaction (whose rollback would undo it), ahead of the next query. */
    #askForOwnNotices(): void {
      if (askForOwnNotices === undefined) return;
      if (this.#askedForOwnNotices || this.getTransactionStatus() !== 'I' || !ownCommitNotices.wanted) return;
      this.#askedForOwnNotices = true;
      (runQuery.call(this, askForOwnNotices) as Promise<unknown>).catch(() => {
        this.#askedForOwnNotices = false;
      });
    }

    /**
     * A query marked as prepared (or prepared by shape) as pg's named query config: its session
     * parses and plans it once, not on every request (planning was three quarters of the
     * principal read's database time, half of the staff lists'). Only for texts with explicit
     * columns, so a migration adding columns cannot change the result of a cached plan.
     */
    #prepared(args: unknown[]): unknown[] {
      const [text, values, ...rest] = args;
      if (!namedStatements || typeof text !== 'string' || !text.startsWith('/* prepared')) return args;
      const name = preparedNameOf(text);
      if (name === undefined) return args;
      if (!this.#named.has(name)) {
        if (this.#named.size >= MAX_NAMED_PER_CONNECTION) return args;
        this.#named.add(name);
      }
      return [{ name, text, values }, ...rest];
    }

    #deliverOnceOutOfTransaction(): void {
      if (this.#held.length === 0 || this.getTransactionStatus() !== 'I') return;
      for (const [channel, payload] of this.#held.splice(0)) ownCommitNotices.deliver(channel, payload);
    }

    override query(...args: unknown[]): never {
      this.#askForOwnNotices();
      const result = runQuery.apply(this, this.#prepared(args));
      if (!(result instanceof Promise)) return result as never;
      return result.then(
        (answer: unknown) => {
          this.#deliverOnceOutOfTransaction();
          return answer;
        },
        (error: unknown) => {
          // The driver wrapper (src/db/failures.ts) reads this error as a database that did not
          // answer. end() marks the client as ending at once, so the pool drops it when Kysely
          // hands it back (right after this error).
          if (error instanceof Error && error.message === ANSWER_OVERDUE) this.end().catch(() => {});
          else this.#deliverOnceOutOfTransaction();
          throw error;
        },
      ) as never;
    }
  };
}
