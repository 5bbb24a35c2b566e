import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../lib/canonical-json.js';

/** Set on an answer that repeats the first one made under the same Idempotency-Key. */
export const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';

/**
 * The optional `Idempotency-Key` header of a write that must not happen twice; `what` names the first answer,
 * `nothingMore` what a repeat does not do again.
 */
export function idempotencyKeyHeaders(what: string, nothingMore = 'does nothing more') {
  return z
    .object({
      'idempotency-key': z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe(
          `Makes a retry safe: a repeat with the same key and body answers the first ${what} (header ` +
            `\`${IDEMPOTENT_REPLAY_HEADER}: true\`) and ${nothingMore}; the same key with another body is 409 ` +
            `\`conflict\`.`,
        ),
    })
    .loose();
}

/**
 * The body of a write made under an Idempotency-Key, without its `replayed` flag: a repeat answered
 * with the first answer says so in the header instead, so every repeat's body is the first one's.
 */
export function idempotentAnswer<Answer extends { replayed: boolean }>(
  reply: { header(name: string, value: string): unknown },
  { replayed, ...answer }: Answer,
): Omit<Answer, 'replayed'> {
  if (replayed) reply.header(IDEMPOTENT_REPLAY_HEADER, 'true');
  return answer;
}

/** What a repeat must ask again to be answered with the first answer: the body, key order aside. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * Runs the work of one key at a time in this process; a repeat arriving meanwhile waits for the
 * first to finish (either way) and then runs, finding the first's answer stored. For writes
 * whose effect is a call to another service, which no database transaction can hold a repeat
 * back from: repeats reaching other instances are left to the stored key's unique index and the
 * other service's own idempotency key.
 */
export class OneAtATime {
  readonly #running = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    for (let running = this.#running.get(key); running !== undefined; running = this.#running.get(key)) await running;
    const result = Promise.resolve().then(work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(key, settled);
    try {
      return await result;
    } finally {
      if (this.#running.get(key) === settled) this.#running.delete(key);
    }
  }
}
