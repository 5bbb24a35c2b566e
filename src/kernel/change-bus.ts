import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';

export const CHANGE_CHANNEL = 'platform_api_changes';

type TopicHandler = (data: unknown) => void;

/**
 * Cross-instance notifications over PostgreSQL NOTIFY. `notify` runs inside the caller's
 * transaction, so every instance (this one included) hears of a change only once it is
 * committed, and never of a rolled-back one. Caches subscribe to topics to invalidate.
 */
export class ChangeBus {
  readonly #handlers = new Map<string, Set<TopicHandler>>();
  readonly #resyncHandlers = new Set<() => void>();
  readonly #instanceId = randomUUID();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly onHandlerError: (error: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    this.#unlisten = await this.database.listen(CHANGE_CHANNEL, {
      onMessage: (payload) => this.#deliver(payload),
      onResync: () => {
        for (const handler of this.#resyncHandlers) this.#safely(handler);
      },
    });
  }

  async stop(): Promise<void> {
    await this.#unlisten?.();
    this.#unlisten = undefined;
  }

  /** Queue a notification in this transaction; it is delivered after commit. */
  async notify(trx: Kysely<Tables>, topic: string, data: unknown = null): Promise<void> {
    await sql`SELECT pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify({ topic, data })})`.execute(trx);
  }

  /**
   * A cache-invalidation notice in `trx`, heard by every instance once it commits. This instance
   * skips its NOTIFY echo (marked with its origin): whoever runs the transaction hands the topic to
   * `deliverCommitted` right after the commit, so the writer's next read already sees the change.
   */
  async invalidate(trx: Kysely<Tables>, topic: string): Promise<void> {
    await this.notify(trx, topic, { origin: this.#instanceId });
  }

  /** This instance's handlers hear the invalidations of a transaction that has just committed. */
  deliverCommitted(topics: Iterable<string>): void {
    for (const topic of topics) this.#dispatch(topic, null);
  }

  on(topic: string, handler: TopicHandler): () => void {
    const handlers = this.#handlers.get(topic) ?? new Set();
    handlers.add(handler);
    this.#handlers.set(topic, handlers);
    return () => handlers.delete(handler);
  }

  /** Called when notifications may have been lost (the listening connection was replaced). */
  onResync(handler: () => void): () => void {
    this.#resyncHandlers.add(handler);
    return () => this.#resyncHandlers.delete(handler);
  }

  #deliver(payload: string): void {
    let message: { topic?: unknown; data?: unknown };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (typeof message.topic !== 'string') return;
    if ((message.data as { origin?: unknown } | null)?.origin === this.#instanceId) return; // delivered at commit
    this.#dispatch(message.topic, message.data);
  }

  #dispatch(topic: string, data: unknown): void {
    for (const handler of this.#handlers.get(topic) ?? []) this.#safely(() => handler(data));
  }

  #safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.onHandlerError(error);
    }
  }
}
