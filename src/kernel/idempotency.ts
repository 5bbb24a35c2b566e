import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';

/** Set on an answer that repeats the first one made under the same Idempotency-Key. */
export const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';

/** The optional `Idempotency-Key` header of a write that must not happen twice; `what` names the first answer. */
export function idempotencyKeyHeaders(what: string) {
  return z.object({
    'idempotency-key': z.string().min(1).max(200).optional()
      .describe(`Makes a retry safe: a repeat with the same key and body answers the first ${what} (header \`${IDEMPOTENT_REPLAY_HEADER}: true\`) and does nothing more; the same key with another body is 409 \`conflict\`.`),
  }).passthrough();
}

/** What a repeat must ask again to be answered with the first answer: the body, key order aside. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
