import type { Kysely } from 'kysely';
import type { EventKind, Tables } from '../db/tables.js';
import type { ChangeBus } from './change-bus.js';

/** A dashboard event or an alert, as subscribers (and later realtime clients) receive it. */
export interface PlatformEvent {
  id: number;
  kind: EventKind;
  name: string;
  payload: Record<string, unknown>;
  actorId: string | null;
  requestId: string | null;
  createdAt: string;
}

export interface NewEvent {
  kind: EventKind;
  name: string;
  payload?: Record<string, unknown>;
  actorId?: string | null;
  requestId?: string | null;
}

const EVENT_TOPIC = 'event';
/** NOTIFY payloads are capped near 8000 bytes; bigger events travel by id and are read back. */
const INLINE_EVENT_MAX_BYTES = 6_000;

type Subscriber = (event: PlatformEvent) => void;

/**
 * `publish` writes the event to the outbox in the caller's transaction and queues a
 * notification; after commit every instance hands it to its in-process subscribers.
 */
export class EventPublisher {
  readonly #subscribers = new Set<Subscriber>();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly bus: ChangeBus,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    bus.on(EVENT_TOPIC, (data) => void this.#receive(data));
  }

  async publish(trx: Kysely<Tables>, event: NewEvent): Promise<void> {
    const row = await trx
      .insertInto('event_outbox')
      .values({
        kind: event.kind,
        name: event.name,
        payload: JSON.stringify(event.payload ?? {}),
        actor_id: event.actorId ?? null,
        request_id: event.requestId ?? null,
      })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    const full: PlatformEvent = {
      id: row.id,
      kind: event.kind,
      name: event.name,
      payload: event.payload ?? {},
      actorId: event.actorId ?? null,
      requestId: event.requestId ?? null,
      createdAt: row.created_at.toISOString(),
    };
    const inline = JSON.stringify(full);
    await this.bus.notify(
      trx,
      EVENT_TOPIC,
      Buffer.byteLength(inline) <= INLINE_EVENT_MAX_BYTES ? full : { id: row.id },
    );
  }

  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  async #receive(data: unknown): Promise<void> {
    try {
      const event = isFullEvent(data) ? data : await this.#load((data as { id: number }).id);
      if (event === undefined) return;
      for (const subscriber of this.#subscribers) subscriber(event);
    } catch (error) {
      this.onError(error);
    }
  }

  async #load(id: number): Promise<PlatformEvent | undefined> {
    const row = await this.db.selectFrom('event_outbox').selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      payload: row.payload as Record<string, unknown>,
      actorId: row.actor_id,
      requestId: row.request_id,
      createdAt: row.created_at.toISOString(),
    };
  }
}

function isFullEvent(data: unknown): data is PlatformEvent {
  return typeof data === 'object' && data !== null && 'name' in data && 'kind' in data;
}

/** The retention job of the system area (the kernel owns the outbox); answers how many rows it deleted. */
export async function deleteOutboxEventsBefore(trx: Kysely<Tables>, cutoff: Date): Promise<number> {
  const result = await trx.deleteFrom('event_outbox').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
