/** Writers of store games and their terms invalidate this topic in their transaction (see ChangeBus.invalidate). */
export const PUBLIC_STORE_TOPIC = 'public_store';
