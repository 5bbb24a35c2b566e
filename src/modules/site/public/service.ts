import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { ChangeBus } from '../../../kernel/change-bus.js';
import { activeAnnouncements, nextAnnouncementBoundary } from '../announcements/index.js';
import { liveBlocks } from '../content-blocks/index.js';
import { publishedPagesIndex } from '../pages/index.js';
import { publishedValues } from '../settings/index.js';
import { SITE_CONFIG_TOPIC, SiteCache, type Built, type CachedPayload } from './site-cache.js';

export interface SiteQuery {
  surface: 'landing' | 'portal';
  locale: string;
}

const keyOf = (query: SiteQuery) => `${query.surface}:${query.locale}`;

/** The public site payload: published state only, built once per change and served from memory. */
export class PublicSiteService {
  readonly #cache = new SiteCache();

  constructor(
    private readonly db: Kysely<Tables>,
    bus: ChangeBus,
  ) {
    bus.on(SITE_CONFIG_TOPIC, () => this.#cache.invalidate());
    bus.onResync(() => this.#cache.invalidate());
  }

  site(query: SiteQuery): Promise<CachedPayload> {
    return this.#cache.get(keyOf(query), () => this.#build(query));
  }

  /** The kept payload while fresh, at once (no promise): the common answer. */
  cached(query: SiteQuery): CachedPayload | undefined {
    return this.#cache.peek(keyOf(query));
  }

  /** Published state only; the copy goes stale when the next announcement starts or ends. */
  async #build(query: SiteQuery): Promise<Built> {
    const now = new Date();
    const [settings, contentBlocks, announcements, pages, staleAt] = await Promise.all([
      publishedValues(this.db),
      liveBlocks(this.db, query.surface, query.locale),
      activeAnnouncements(this.db, query.surface, now),
      publishedPagesIndex(this.db),
      nextAnnouncementBoundary(this.db, now),
    ]);
    return {
      payload: {
        surface: query.surface,
        locale: query.locale,
        settings,
        content_blocks: contentBlocks,
        announcements,
        pages,
      },
      staleAt,
    };
  }
}
