import { conflict, invalidRequest } from '../../kernel/errors.js';

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

interface DatabaseError {
  code?: unknown;
  constraint?: unknown;
}

/**
 * Runs a store write and turns the database's refusals into the caller's errors: a unique
 * violation is 409 `conflict` saying what is taken (by constraint name); a foreign-key
 * violation (a linked row deleted in a race the share locks did not cover) is 422, never a 500.
 */
export async function withConstraintErrors<T>(
  run: () => Promise<T>,
  taken: (constraint: string) => Record<string, unknown>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const { code, constraint } = (typeof error === 'object' && error !== null ? error : {}) as DatabaseError;
    if (code === UNIQUE_VIOLATION) throw conflict(taken(typeof constraint === 'string' ? constraint : ''));
    if (code === FOREIGN_KEY_VIOLATION) throw invalidRequest({ reason: 'a linked id does not exist' });
    throw error;
  }
}
