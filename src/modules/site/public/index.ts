/** What other areas use of the public site. */
export { matchesEtag, SITE_CONFIG_TOPIC, SiteCache } from './site-cache.js';
export type { CachedPayload } from './site-cache.js';
