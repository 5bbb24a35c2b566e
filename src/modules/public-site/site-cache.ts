import { createHash } from 'node:crypto';

/** Writers of anything the public site payload shows notify this topic (after commit). */
export const SITE_CONFIG_TOPIC = 'site_config';
/** Content with time windows changes without a write; a cached payload never outlives this. */
const MAX_AGE_MS = 10_000;

export interface CachedPayload {
  body: string;
  etag: string;
  builtAt: number;
}

/**
 * Built payloads by key (surface and locale), invalidated as a whole on every instance when a
 * change commits. A build that started before an invalidation is served but not kept.
 */
export class SiteCache {
  readonly #entries = new Map<string, CachedPayload>();
  readonly #building = new Map<string, Promise<CachedPayload>>();
  #generation = 0;

  constructor(private readonly now: () => number = Date.now) {}

  invalidate(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#building.clear();
  }

  async get(key: string, build: () => Promise<unknown>): Promise<CachedPayload> {
    const cached = this.#entries.get(key);
    if (cached !== undefined && this.now() - cached.builtAt < MAX_AGE_MS) return cached;
    let pending = this.#building.get(key);
    if (pending === undefined) {
      const generation = this.#generation;
      pending = build().then((payload) => {
        const body = JSON.stringify(payload);
        const entry = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`, builtAt: this.now() };
        if (generation === this.#generation) this.#entries.set(key, entry);
        return entry;
      }).finally(() => {
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
