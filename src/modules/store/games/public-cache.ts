/** Writers of store games and their terms invalidate this topic in their transaction (see ChangeBus.invalidate). */
export const PUBLIC_STORE_TOPIC = 'public_store';
/** Distinct list queries kept at once: filters include free text, so the set of keys is unbounded. */
export const PUBLIC_STORE_CACHE_ENTRIES = 500;
