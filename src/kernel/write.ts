import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import {
  pictureEntry,
  recordAudit,
  recordAuditMany,
  type AuditActor,
  type AuditEntry,
  type AuditPicture,
  type AuditRowEntry,
} from './audit.js';
import { editAudited, type AuditedEdit, type EditOutcome } from './write/audited-edit.js';
import type { ChangeBus } from './change-bus.js';
import type { EventPublisher, NewEvent } from './events.js';
import { retryingConflicts, retryingTransaction, type RetryOptions } from './write/transaction-retry.js';

/** The audit rows and events of a write, in the transaction it runs in. */
export interface AuditedTransaction {
  /** Every statement of the write goes through it. */
  readonly trx: Kysely<Tables>;
  /** Who the audit rows name: a staff member, a player, or the service itself (`userId` null). */
  readonly actor: AuditActor;
  /** An audit row, committed with the change or not at all. */
  audit(entry: AuditEntry): Promise<void>;
  /** Many audit rows in one statement (bulk operations). */
  auditMany(entries: AuditEntry[]): Promise<void>;
  /** An audit row of rows the write read and wrote, each side seen through its table's `picture`. */
  auditRow(picture: AuditPicture, entry: AuditRowEntry): Promise<void>;
  /** A dashboard event or alert into the outbox, heard after commit; by the actor and their request unless it says. */
  publish(event: NewEvent): Promise<void>;
}

/** What a write's work is handed: its transaction, and what else commits with it. */
export interface Write {
  readonly trx: Kysely<Tables>;
  /** A dashboard event or alert into the outbox; every instance's subscribers hear it after commit. */
  publish(event: NewEvent): Promise<void>;
  /** Caches of `topic` are dropped on every instance once the write commits (never if it rolls back). */
  invalidate(topic: string): void;
}

export type AuditedWrite = Write & AuditedTransaction;

export type WriteOptions = Pick<RetryOptions, 'isolationLevel'>;

/**
 * The one way the service writes. `write(actor, async (w) => …)` runs the work in a transaction
 * with its audit rows (`w.audit`), events (`w.publish`) and cache invalidations (`w.invalidate`);
 * `write(async (w) => …)` is the same without an actor to audit (webhooks, self-service rows).
 * A deadlock or serialization failure runs the work again from the start, twice at most, then
 * answers 503 (transaction-retry.ts): the work must do nothing outside `w.trx` that cannot be
 * done twice. Invalidations reach this instance as soon as the transaction commits, so the
 * writer's next read sees the change; the other instances hear them by NOTIFY.
 */
export interface Writes {
  <T>(actor: AuditActor, work: (w: AuditedWrite) => Promise<T>, options?: WriteOptions): Promise<T>;
  <T>(work: (w: Write) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * A staff edit of one row with nothing else to check: one statement that locks, compares,
   * writes and audits (audited-edit.ts), a measured win over a transaction's five round trips.
   */
  editRow<Field extends string>(actor: AuditActor, edit: AuditedEdit<Field>): Promise<EditOutcome>;
}

/**
 * The audited side of a transaction this helper does not run: a scheduled job's run, whose
 * transaction the scheduler owns. No `invalidate`: only who sees the commit can deliver that.
 * Without `events` (a job that publishes nothing), `publish` is refused.
 */
export function auditedTransaction(
  trx: Kysely<Tables>,
  actor: AuditActor,
  events?: EventPublisher,
): AuditedTransaction {
  return {
    trx,
    actor,
    audit: (entry) => recordAudit(trx, actor, entry),
    auditMany: (entries) => recordAuditMany(trx, actor, entries),
    auditRow: (picture, entry) => recordAudit(trx, actor, pictureEntry(picture, entry)),
    publish: async (event) => {
      if (events === undefined) throw new Error('this transaction has no event publisher');
      await events.publish(trx, { actorId: actor.userId, requestId: actor.requestId, ...event });
    },
  };
}

export function createWrites(db: Kysely<Tables>, bus: ChangeBus, events: EventPublisher): Writes {
  async function run<T>(actor: AuditActor | undefined, work: (w: AuditedWrite) => Promise<T>, options?: WriteOptions) {
    const { result, topics } = await retryingTransaction(
      db,
      async (trx) => {
        // Per attempt: a rolled-back attempt's invalidations are nobody's business.
        const topics = new Set<string>();
        const write: Write = {
          trx,
          publish: (event) => events.publish(trx, event),
          invalidate: (topic) => void topics.add(topic),
        };
        const audited = actor === undefined ? undefined : auditedTransaction(trx, actor, events);
        const result = await work({ ...write, ...audited } as AuditedWrite);
        for (const topic of topics) await bus.invalidate(trx, topic);
        return { result, topics };
      },
      options,
    );
    bus.deliverCommitted(topics);
    return result;
  }

  function write<T>(
    first: AuditActor | ((w: Write) => Promise<T>),
    second?: ((w: AuditedWrite) => Promise<T>) | WriteOptions,
    third?: WriteOptions,
  ): Promise<T> {
    if (typeof first === 'function') return run(undefined, first, second as WriteOptions | undefined);
    return run(first, second as (w: AuditedWrite) => Promise<T>, third);
  }

  return Object.assign(write, {
    editRow: <Field extends string>(actor: AuditActor, edit: AuditedEdit<Field>) =>
      retryingConflicts(() => editAudited(db, actor, edit)),
  }) as Writes;
}
