import type { Redis } from 'ioredis';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import { inClientSpan } from '../lib/spans.js';
import { AppError } from './errors.js';

/** The Redis commands' spans (tracing on): a count is one EVAL of INCREMENT_SCRIPT; keys are not shown. */
const REDIS_COUNT = { [ATTR_DB_SYSTEM_NAME]: 'redis', [ATTR_DB_OPERATION_NAME]: 'EVAL' };
const REDIS_PING = { [ATTR_DB_SYSTEM_NAME]: 'redis', [ATTR_DB_OPERATION_NAME]: 'PING' };
const WITHIN_TRACE = { withinTrace: true };

export interface RateLimit {
  limit: number;
  windowSeconds: number;
  /** What the spec keys this limit by; signed-in routes count per user, public ones per IP. */
  keyedBy: 'ip' | 'user';
  /** The refusal when the limit is hit; 429 `rate_limited` unless the spec says otherwise. */
  refusal?: { status: number; error: string };
}

/** The spec's table ("Limits"), in one place. Routes name their limit: `config: { rateLimit: 'waitlist' }`. */
export const RATE_LIMITS = {
  deviceCode: { limit: 3, windowSeconds: 60, keyedBy: 'ip' },
  // Device polling answers OAuth-style: 400 `slow_down` (the route adds its interval).
  deviceToken: { limit: 30, windowSeconds: 60, keyedBy: 'ip', refusal: { status: 400, error: 'slow_down' } },
  deviceApprove: { limit: 5, windowSeconds: 60, keyedBy: 'user' },
  support: { limit: 5, windowSeconds: 3_600, keyedBy: 'user' },
  // Upload URLs cost an intent row and, on S3, a signature: enough for any real use, not a flood.
  supportAttachments: { limit: 20, windowSeconds: 3_600, keyedBy: 'user' },
  avatarUpload: { limit: 20, windowSeconds: 3_600, keyedBy: 'user' },
  waitlist: { limit: 5, windowSeconds: 60, keyedBy: 'ip' },
  unsubscribe: { limit: 30, windowSeconds: 60, keyedBy: 'ip' },
  // The development console's code exchange: a person clicking a link, now and then a retry.
  consoleSignIn: { limit: 10, windowSeconds: 60, keyedBy: 'ip' },
} as const satisfies Record<string, RateLimit>;

export type RateLimitName = keyof typeof RATE_LIMITS;

/** Each refusal's body as JSON text, by its error code: one per rule kind, whatever the subject. */
const REFUSAL_TEXTS = new Map<string, string>();

/** The refusal past a limit (429 `rate_limited`, or the rule's own), naming the rule it hit (metrics). */
export class RateLimitedError extends AppError {
  constructor(
    readonly rule: RateLimitName,
    refusal: { status: number; error: string },
    retryAfterSeconds: string,
  ) {
    super(refusal.status, refusal.error, undefined, { 'retry-after': retryAfterSeconds });
  }

  /** A flood's refusals all carry the same body (the wait is in Retry-After): its text is kept. */
  override keptText(): string {
    let text = REFUSAL_TEXTS.get(this.code);
    if (text === undefined) {
      text = JSON.stringify(this.toBody());
      REFUSAL_TEXTS.set(this.code, text);
    }
    return text;
  }
}

export interface WindowCount {
  count: number;
  /** Milliseconds until this window closes. */
  resetInMs: number;
}

/** A fixed-window counter store. Keys already carry the window number. */
export interface CounterStore {
  increment(key: string, windowMs: number): Promise<WindowCount>;
  /** Resolves once counting works, or after a bounded wait if it cannot yet (then requests fail open). */
  ready?(): Promise<void>;
  /** A store outside the process (Redis): resolves when it answers now, rejects otherwise. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>();
  #sweepAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async increment(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    this.#sweep(now);
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    const entry = this.#counts.get(key) ?? { count: 0, expiresAt: windowEnd };
    entry.count += 1;
    this.#counts.set(key, entry);
    return { count: entry.count, resetInMs: windowEnd - now };
  }

  /** Drop closed windows now and then so the map holds only live ones. */
  #sweep(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + 10_000;
    for (const [key, entry] of this.#counts) if (entry.expiresAt <= now) this.#counts.delete(key);
  }

  async close(): Promise<void> {
    this.#counts.clear();
  }
}

// INCR and the first PEXPIRE in one round trip, atomically: a counter never outlives its window.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/**
 * How long a request waits for its count. Redis answers in well under a millisecond; one that
 * has not answered by then is hung (a stalled connection, a blocked server), and waiting longer
 * would hang every rate-limited request with it. Past it the count is an error: fail-open. Not
 * tighter: a busy process (or test machine) can hold its event loop for hundreds of ms.
 */
export const REDIS_COUNT_TIMEOUT_MS = 1_500;

/** How long a start waits for Redis before serving with fail-open counts. */
const READY_WAIT_MS = 2_000;

/** Where the store reports Redis going away and coming back (the service's logger). */
export interface StoreHealthLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RedisCounterStoreOptions {
  /** Prepended to every key (REDIS_KEY_PREFIX): deployments sharing one Redis keep their own counters. */
  prefix: string;
  log?: StoreHealthLog;
  now?: () => number;
  timeoutMs?: number;
}

/**
 * Counts in Redis. An outage lets requests through uncounted (fail-open: counters are not worth
 * an outage) and is reported here, where the connection's state is known: once when Redis stops
 * answering, with the reason, and once when it answers again. A line per failed count or per
 * reconnection attempt would bury the log (dozens a minute, a stack per limited request).
 */
export class RedisCounterStore implements CounterStore {
  readonly #prefix: string;
  readonly #log: StoreHealthLog | undefined;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  #state: 'starting' | 'up' | 'down' = 'starting';
  #closing = false;

  constructor(
    private readonly redis: Redis,
    options: RedisCounterStoreOptions,
  ) {
    this.#prefix = options.prefix;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? REDIS_COUNT_TIMEOUT_MS;
    redis.on('ready', () => this.#answering());
    // ioredis emits one 'error' per failed reconnection attempt; only the first of an outage is news.
    redis.on('error', (error: Error) => this.#notAnswering(error.message));
    redis.on('close', () => this.#notAnswering('connection closed'));
  }

  async increment(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.#now();
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    const ttlMs = String(windowEnd - now + 1_000);
    const counting = this.redis.eval(INCREMENT_SCRIPT, 1, this.#prefix + key, ttlMs) as Promise<number>;
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<never>((_resolve, reject) => {
      // After a stalled event loop the timer runs before the socket's pending answer is read;
      // setImmediate lets that answer in first, so a busy process does not stop counting.
      const late = () => reject(new Error(`no answer within ${this.#timeoutMs} ms`));
      timer = setTimeout(() => setImmediate(late), this.#timeoutMs);
    });
    // A late answer (or error) of an abandoned count is dropped, never left unhandled.
    counting.catch(() => {});
    try {
      const count = await inClientSpan('EVAL', REDIS_COUNT, () => Promise.race([counting, overdue]), WITHIN_TRACE);
      this.#answering();
      return { count, resetInMs: windowEnd - now };
    } catch (error) {
      this.#notAnswering((error as Error).message);
      // Nothing was counted: the request goes through (fail-open).
      return { count: 0, resetInMs: windowEnd - now };
    } finally {
      clearTimeout(timer);
    }
  }

  #answering(): void {
    if (this.#state === 'down') this.#log?.info({}, 'rate-limit store (REDIS_URL) is back: requests are counted again');
    this.#state = 'up';
  }

  #notAnswering(reason: string): void {
    if (this.#closing || this.#state === 'down') return;
    this.#state = 'down';
    this.#log?.warn({ reason }, 'rate-limit store (REDIS_URL) unavailable: requests pass uncounted until it is back');
  }

  /**
   * Commands are not queued while disconnected (a count then fails open at once), so a freshly
   * started instance would let its first requests through uncounted: the start waits for the
   * connection, at most READY_WAIT_MS, and goes on failing open if Redis is down.
   */
  async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    let onReady: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      onReady = resolve;
      this.redis.once('ready', onReady);
      timer = setTimeout(resolve, READY_WAIT_MS);
    });
    clearTimeout(timer);
    if (onReady !== undefined) this.redis.off('ready', onReady);
  }

  /**
   * Resolves when Redis answers a PING within the count's budget; rejects otherwise (readiness
   * asks this: counts fail open, so nothing else would show that Redis is gone).
   */
  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const pinging = this.redis.ping();
    pinging.catch(() => {});
    const overdue = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    try {
      await inClientSpan('PING', REDIS_PING, () => Promise.race([pinging, overdue]), WITHIN_TRACE);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.redis.disconnect();
  }
}

/** How many used-up windows a limiter remembers at most; past it, refusals ask the store again. */
const EXHAUSTED_WINDOWS_KEPT = 100_000;

export class RateLimiter {
  /**
   * Windows known to be used up (key → when the window closes): a fixed window's count only grows,
   * so a subject past its limit stays refused until the window closes, whatever the store says.
   * A flood's later requests are refused here, synchronously, with no count asked of the store:
   * refusing stays cheaper than answering (bench: the 429 scenario). Closed windows are swept.
   */
  readonly #exhausted = new Map<string, number>();
  #sweepAt = 0;

  constructor(
    private readonly store: CounterStore,
    private readonly onStoreError: (error: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether the shared counter store answers: undefined when counts live in this process (no
   * REDIS_URL: nothing outside to ask), else a promise that rejects when it does not answer.
   */
  probeStore(): Promise<void> | undefined {
    return this.store.ping?.();
  }

  /** The refusal of a subject whose window this limiter already saw used up, or undefined (then count). */
  knownRefusal(name: RateLimitName, subject: string): RateLimitedError | undefined {
    const now = this.now();
    return this.#knownRefusalOf(name, this.#windowKey(name, subject, now), now);
  }

  /**
   * Counts one request of `subject` against the named limit; throws the refusal past the limit.
   * A store outage lets the request through (logged): counters are not worth an outage.
   */
  async consume(name: RateLimitName, subject: string): Promise<void> {
    const now = this.now();
    // One key for the check and the count: built once per counted request.
    const key = this.#windowKey(name, subject, now);
    const known = this.#knownRefusalOf(name, key, now);
    if (known !== undefined) throw known;
    const rule: RateLimit = RATE_LIMITS[name];
    let counted: WindowCount;
    try {
      counted = await this.store.increment(key, rule.windowSeconds * 1_000);
    } catch (error) {
      this.onStoreError(error);
      return;
    }
    if (counted.count <= rule.limit) return;
    this.#remember(key, now + counted.resetInMs, now);
    throw refusalOf(name, counted.resetInMs);
  }

  #knownRefusalOf(name: RateLimitName, key: string, now: number): RateLimitedError | undefined {
    const closesAt = this.#exhausted.get(key);
    return closesAt !== undefined && closesAt > now ? refusalOf(name, closesAt - now) : undefined;
  }

  #windowKey(name: RateLimitName, subject: string, now: number): string {
    const windowMs = RATE_LIMITS[name].windowSeconds * 1_000;
    return `${name}:${subject}:${Math.floor(now / windowMs)}`;
  }

  #remember(key: string, closesAt: number, now: number): void {
    if (now >= this.#sweepAt) {
      this.#sweepAt = now + 10_000;
      for (const [each, until] of this.#exhausted) if (until <= now) this.#exhausted.delete(each);
    }
    if (this.#exhausted.size < EXHAUSTED_WINDOWS_KEPT) this.#exhausted.set(key, closesAt);
  }
}

function refusalOf(name: RateLimitName, resetInMs: number): RateLimitedError {
  const rule: RateLimit = RATE_LIMITS[name];
  const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1_000)));
  return new RateLimitedError(name, rule.refusal ?? { status: 429, error: 'rate_limited' }, retryAfter);
}
