import { createHash } from 'node:crypto';

/** Writers of anything the public site payload shows notify this topic (after commit). */
export const SITE_CONFIG_TOPIC = 'site_config';
/** A safety cap: even if an invalidation were lost, a cached payload never outlives this. */
const MAX_AGE_MS = 10_000;

export interface CachedPayload {
  /** The answer's JSON as the bytes written: encoded once per build, not on every answer. */
  body: Buffer;
  etag: string;
  /** When this copy stops being served: the age cap, or sooner when the content says so. */
  expiresAt: number;
}

/** What a build returns: the payload, and the moment it goes stale by itself (a time window edge). */
export interface Built {
  payload: unknown;
  staleAt: Date | null;
}

/**
 * Built payloads by key (surface and locale), invalidated as a whole on every instance when a
 * change commits. A build that started before an invalidation is served but not kept.
 */
export class SiteCache {
  readonly #entries = new Map<string, CachedPayload>();
  readonly #building = new Map<string, Promise<CachedPayload>>();
  #generation = 0;

  /** `maxEntries`: past it, new keys are built and served but not kept (keys can come from free text). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  invalidate(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#building.clear();
  }

  /** The kept copy while it is fresh, without a promise: what a route answers at once (else `get`). */
  peek(key: string): CachedPayload | undefined {
    const cached = this.#entries.get(key);
    return cached !== undefined && this.now() < cached.expiresAt ? cached : undefined;
  }

  async get(key: string, build: () => Promise<Built>): Promise<CachedPayload> {
    const cached = this.peek(key);
    if (cached !== undefined) return cached;
    let pending = this.#building.get(key);
    if (pending === undefined) {
      const generation = this.#generation;
      pending = build()
        .then(({ payload, staleAt }) => {
          const body = Buffer.from(JSON.stringify(payload));
          const expiresAt = Math.min(this.now() + MAX_AGE_MS, staleAt?.getTime() ?? Infinity);
          const entry = {
            body,
            etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
            expiresAt,
          };
          if (generation === this.#generation && (this.#entries.has(key) || this.#entries.size < this.maxEntries))
            this.#entries.set(key, entry);
          return entry;
        })
        .finally(() => {
          if (this.#building.get(key) === pending) this.#building.delete(key);
        });
      this.#building.set(key, pending);
    }
    return pending;
  }
}

/** Does an If-None-Match header name this ETag (or `*`)? */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
