import { setTimeout as sleep } from 'node:timers/promises';
import type { IsolationLevel, Kysely, Transaction } from 'kysely';
import { unavailable } from '../errors.js';

/**
 * SQLSTATEs PostgreSQL answers when it aborted a transaction only because of another one running
 * at the same time: serialization_failure (a REPEATABLE READ or SERIALIZABLE conflict) and
 * deadlock_detected (two transactions waiting on each other's locks; the server kills one). The
 * same transaction run again from the start normally succeeds.
 */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);

/** Attempts in all (the first and two retries): a conflict that survives three is real contention. */
export const TRANSACTION_ATTEMPTS = 3;

export function isTransactionConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

export interface RetryOptions {
  /** Attempts in all; TRANSACTION_ATTEMPTS by default. */
  attempts?: number;
  /** The transaction's isolation level; the server's default (READ COMMITTED) when unset. */
  isolationLevel?: IsolationLevel;
  /** Told of each conflict that will be retried (tests, logs). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `attempt` again from the start (a bounded number of times, after a short random pause)
 * when PostgreSQL aborted it for a deadlock or a serialization failure. Without this such an
 * abort is a 500 for a request that did nothing wrong. When every attempt conflicted, the answer
 * is 503 `unavailable` (`details.reason: 'database_contention'`, retry after a second), never a
 * 500. `attempt` must be safe to run again: everything it does goes through a transaction (rolled
 * back with the attempt), or is idempotent (a provider call under an idempotency key).
 */
export async function retryingConflicts<T>(
  attempt: () => Promise<T>,
  options: Omit<RetryOptions, 'isolationLevel'> = {},
): Promise<T> {
  const attempts = options.attempts ?? TRANSACTION_ATTEMPTS;
  for (let made = 1; ; made += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      if (made >= attempts) throw unavailable({ reason: 'database_contention' }, 1);
      options.onRetry?.(error, made);
      // Jittered, growing: the transactions that collided should not start again in step.
      await sleep(Math.floor(Math.random() * 20 * made) + 5);
    }
  }
}

/** Runs `work` in a transaction, retried as `retryingConflicts` says. */
export function retryingTransaction<DB, T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  return retryingConflicts(() => {
    const builder =
      options.isolationLevel === undefined
        ? db.transaction()
        : db.transaction().setIsolationLevel(options.isolationLevel);
    return builder.execute(work);
  }, options);
}
