/** What other areas use of the public site. */
export { answerWithEtag } from './etag-answer.js';
export { matchesEtag, SITE_CONFIG_TOPIC, SiteCache } from './site-cache.js';
export type { CachedPayload } from './site-cache.js';
