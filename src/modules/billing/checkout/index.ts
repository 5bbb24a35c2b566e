/** What other areas use of checkout and fulfilment. */
export { Fulfilment } from './fulfilment.js';
export { applyProviderSubscription, syncUserTier } from './subscriptions.js';
export { atProvider } from '../provider-errors.js';
export { renewingSubscriptionsOf } from './subscription-queries.js';
export { LIVE_STATUSES } from './tables.js';
