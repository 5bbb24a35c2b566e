import { retryAfterSeconds } from './errors.js';

/** When the client sends a refused call again. */
export interface RetryOptions {
  /** Attempts after the first (default 2; 0 turns retrying off). */
  retries?: number;
  /**
   * The longest wait before one attempt (default 10 s). An answer asking for longer (a maintenance
   * level's `Retry-After: 30`) is returned as it is: that is an outage, not a blip.
   */
  maxDelayMs?: number;
  /** The first wait of a 429 without `Retry-After`, doubled each attempt (default 500 ms). */
  baseDelayMs?: number;
}

/** A fetch as openapi-fetch calls it (the second argument carries its runtime's request extensions). */
export type Fetch = (request: Request, init?: Record<string, unknown>) => Promise<Response>;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Sending again changes nothing for idempotent methods, nor for a call carrying an Idempotency-Key
 * (the service answers the first result to a repeat); any other write might be done twice.
 */
export function mayRetry(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/** How long to wait before sending again, or undefined when this answer is final. */
function retryDelayMs(response: Response, attempt: number, options: Required<RetryOptions>): number | undefined {
  const asked = retryAfterSeconds(response.headers);
  // 503 without Retry-After is no promise that a retry helps; 429 always is, sooner or later.
  if (response.status === 503 && asked === undefined) return undefined;
  if (response.status !== 503 && response.status !== 429) return undefined;
  const delay = asked === undefined ? options.baseDelayMs * 2 ** attempt : asked * 1000;
  return delay <= options.maxDelayMs ? delay : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * `fetch` that sends a call again after 429, or 503 with `Retry-After`, waiting as asked: the very
 * same request each time, so its Idempotency-Key is reused and the service answers the first result.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions = {}): Fetch {
  const policy: Required<RetryOptions> = { retries: 2, maxDelayMs: 10_000, baseDelayMs: 500, ...options };
  return async (request, init) => {
    if (policy.retries === 0 || !mayRetry(request)) return fetch(request, init);
    for (let attempt = 0; ; attempt++) {
      const last = attempt === policy.retries;
      // A body can be read once: every attempt but the last sends a copy.
      const response = await fetch(last ? request : request.clone(), init);
      const delay = last ? undefined : retryDelayMs(response, attempt, policy);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
