/**
 * SQLSTATE classes of a database that is failing rather than a query that is wrong: connection
 * exceptions (08), insufficient resources (53), operator intervention such as a statement timeout
 * or shutdown (57), system errors (58) and internal errors (XX).
 */
const FAILING_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
/** The pool's and socket's ways of saying the database did not answer. */
const FAILING_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const FAILING_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Client has encountered a connection error/i];

/** A failing or unreachable database, told from a wrong query: answered 503 and counted by incident monitoring. */
export function isDatabaseFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code) && FAILING_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
    if (FAILING_NETWORK_CODES.has(code)) return true;
  }
  return typeof message === 'string' && FAILING_MESSAGES.some((pattern) => pattern.test(message));
}
