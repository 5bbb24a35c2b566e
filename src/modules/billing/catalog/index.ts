/** What other areas use of the billing catalog. */
export { resolveCheckoutPrice } from './queries.js';
export { PRICE_INTERVALS } from './schemas.js';
export { checkoutRefusalError } from './service.js';
export type { PriceInterval } from './tables.js';
