/** What other areas use of users. */
export { identityCall, providerMayHoldSession } from './identity-calls.js';
export { removeUser, writeStatusChange } from './lifecycle.js';
export { LAST_OWNER_REFUSAL, LastActiveOwnerRefusal, refusingLastOwnerLoss } from './owner-guard.js';
export { ACTING_ABOVE_REFUSAL, refuseActingAbove } from './policy.js';
export { findUser, findUsersByEmail, isLastActiveOwner, lockUser } from './queries.js';
export { LIVE_SUBSCRIPTION_STATUSES, matchesSegment, userSegmentBody } from './segment.js';
export type { UserSegment } from './segment.js';
