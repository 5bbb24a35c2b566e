/** What other areas use of checkout and fulfilment. */
export { applyProviderSubscription, Fulfilment, syncUserTier } from './fulfilment.js';
export { atProvider } from './provider-errors.js';
export { renewingSubscriptionsOf } from './subscription-queries.js';
export { LIVE_STATUSES } from './tables.js';
