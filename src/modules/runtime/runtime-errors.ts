import { RuntimeRefusedError, RuntimeUnavailableError } from '../../adapters/runtime/index.js';
import { AppError, conflict, invalidRequest, notFound, unavailable } from '../../kernel/errors.js';

/** How long a caller should wait before retrying a call the runtime could not take. */
export const RUNTIME_RETRY_AFTER_SECONDS = 5;

/**
 * The usual meaning of a runtime failure for a staff operation (operation 15's table): the
 * runtime unreachable → 503 `unavailable`; its 404 → `not_found`; 409 → `conflict`; any other
 * refusal → 422 `invalid_request` with the runtime's code and message in `details`. An
 * operation with a different meaning (a session the runtime cannot place is 503) maps first.
 */
export function runtimeFailure(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof RuntimeUnavailableError)
    return unavailable({ reason: 'runtime_unavailable' }, RUNTIME_RETRY_AFTER_SECONDS);
  if (error instanceof RuntimeRefusedError) {
    const details = { runtime_code: error.code, message: error.message };
    if (error.status === 404) return notFound('not_found', details);
    if (error.status === 409) return conflict(details);
    return invalidRequest(details);
  }
  return error;
}

/** Runs a runtime call and rethrows its failure as the route's error. */
export async function callRuntime<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw runtimeFailure(error);
  }
}
