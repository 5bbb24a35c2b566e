import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { ChangeBus } from '../../../kernel/change-bus.js';
import { canonicalJson } from '../../../lib/canonical-json.js';
import { notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { SiteCache, type CachedPayload } from '../../site/public/index.js';
import { PUBLIC_STORE_TOPIC } from '../cache.js';
import { findPublishedGame, listPublishedGames } from './queries.js';
import { publicGamesPage, type PublicGameDetail, type PublicGamesQuery } from './schemas.js';

/** Distinct list queries kept at once: filters include free text, so the set of keys is unbounded. */
const PUBLIC_STORE_CACHE_ENTRIES = 500;

/**
 * The public store: published games only. List pages are the hottest anonymous read after the
 * site payload, so each is built and serialized once per change and served from memory; every
 * store write invalidates them on every instance (at commit here, over NOTIFY elsewhere), and a
 * copy never outlives the site cache's age cap.
 */
export class PublicStoreService {
  readonly #pages = new SiteCache(Date.now, PUBLIC_STORE_CACHE_ENTRIES);

  constructor(
    private readonly db: Kysely<Tables>,
    bus: ChangeBus,
  ) {
    bus.on(PUBLIC_STORE_TOPIC, () => this.#pages.invalidate());
    bus.onResync(() => this.#pages.invalidate());
  }

  /** The kept page while fresh, at once (no promise): the common answer. `key`: `keyOf(query)`. */
  cached(key: string): CachedPayload | undefined {
    return this.#pages.peek(key);
  }

  /** A list query's key: its canonical JSON, worked out once per request. */
  keyOf(query: PublicGamesQuery): string {
    return canonicalJson(query);
  }

  list(query: PublicGamesQuery, key = canonicalJson(query)): Promise<CachedPayload> {
    return this.#pages.get(key, async () => {
      const { rows, total } = await listPublishedGames(this.db, query);
      // Shaped by the response schema once, as the serializer would shape it on every request.
      return { payload: publicGamesPage.parse(paged(rows, query, total)), staleAt: null };
    });
  }

  /** Draft, hidden and unknown games answer alike: 404 `game_not_found`. */
  async get(slug: string): Promise<PublicGameDetail> {
    const game = await findPublishedGame(this.db, slug);
    if (game === undefined) throw notFound('game_not_found');
    return game;
  }
}
