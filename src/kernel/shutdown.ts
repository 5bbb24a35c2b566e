import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DrainState } from './drain.js';

/** How often connections that have fallen idle are ended while the drain runs. */
const IDLE_SWEEP_MS = 50;
/**
 * After the timeout has cut every connection, how long what remains (a job's transaction, a
 * send, closing the database) may take before the process is left as it is.
 */
const CUT_GRACE_MS = 2_000;

export interface DrainParts {
  app: FastifyInstance;
  drain: DrainState;
  log: FastifyBaseLogger;
  /** SHUTDOWN_DELAY_MS: serving on, readiness at 503, so load balancers take the instance out first. */
  delayMs: number;
  /** SHUTDOWN_TIMEOUT_MS: the bound on finishing in-flight work once the listener is closed. */
  timeoutMs: number;
  /** What closes once the HTTP side has (vacuum, kernel, database), in order, each with its name. */
  closeAfter: Array<[name: string, close: () => Promise<void>]>;
}

/** `drained`: every step finished in time; `cut`: the timeout ended connections or left a step unfinished. */
export type DrainOutcome = 'drained' | 'cut';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The shutdown of a serving instance, in order:
 * 1. readiness turns 503 (`draining`) at once; the instance serves on for `delayMs`;
 * 2. the listener closes (new connections refused); realtime sockets close with 1001; in-flight
 *    requests finish, each keep-alive connection ending as soon as it falls idle; then the app's
 *    onClose hooks wait for the scheduled job being run and the mail being sent;
 * 3. the rest closes (`closeAfter`: vacuum, kernel, database).
 * Steps 2 and 3 are bounded by `timeoutMs`: past it every remaining connection is ended, and
 * what is still unfinished CUT_GRACE_MS later is left (the caller exits non-zero).
 */
export async function drainAndStop(parts: DrainParts): Promise<DrainOutcome> {
  const { app, drain, log } = parts;
  drain.begin();
  log.info({ delay_ms: parts.delayMs, timeout_ms: parts.timeoutMs }, 'draining: readiness answers 503');
  if (parts.delayMs > 0) await sleep(parts.delayMs);

  let step = 'http (requests, realtime sockets, the running job, mail being sent)';
  let cut = false;
  const startedAt = Date.now();
  let deadline: NodeJS.Timeout | undefined;
  let abandon: NodeJS.Timeout | undefined;
  const abandoned = new Promise<'abandoned'>((resolve) => {
    deadline = setTimeout(() => {
      cut = true;
      log.warn({ step, timeout_ms: parts.timeoutMs }, 'drain timed out: ending every remaining connection');
      app.server.closeAllConnections();
      abandon = setTimeout(() => resolve('abandoned'), CUT_GRACE_MS);
    }, parts.timeoutMs);
  });
  // close() ends the connections idle at that moment only; a keep-alive connection whose
  // in-flight request finishes later would stay open (and close() wait) until the timeout.
  // Ending each one as soon as it falls idle lets the drain end once the last answer is sent.
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);

  const closing = (async () => {
    await app.close();
    for (const [name, close] of parts.closeAfter) {
      step = name;
      await close();
    }
    return 'closed' as const;
  })();
  closing.catch(() => {}); // a step failing after the drain was abandoned changes nothing
  try {
    const ended = await Promise.race([closing, abandoned]);
    if (ended === 'abandoned') {
      log.error({ step }, 'drain abandoned: the process exits with work unfinished');
      return 'cut';
    }
    log.info({ duration_ms: Date.now() - startedAt, cut }, 'drained');
    return cut ? 'cut' : 'drained';
  } catch (error) {
    log.error({ err: error, step }, 'shutdown step failed');
    return 'cut';
  } finally {
    clearTimeout(deadline);
    clearTimeout(abandon);
    clearInterval(sweep);
  }
}
