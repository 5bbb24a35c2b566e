/** What other areas use of users. */
export {
  clearAvatarsUsing,
  currentAvatarKey,
  ensureUsers,
  lockAvatarKey,
  lockUserEmail,
  lockUserRow,
  lockUsersInIdOrder,
  lockUsersSkipLocked,
  lockUserStatus,
  refuseTokensIssuedBefore,
  setAvatarKey,
  setUserTier,
  updateProfileColumns,
} from './account-row.js';
export { daysAfter, deletionOf, GRACE_PERIOD_DAYS, type Deletion } from './deletion.js';
export { writeUserFixtures, type UserFixture } from './fixtures.js';
export { identityCall, providerMayHoldSession } from './identity-calls.js';
export { removeUser, writeStatusChange } from './lifecycle.js';
export { LastActiveOwnerRefusal, refusingLastOwnerLoss } from './owner-guard.js';
export { ACTING_ABOVE_REFUSAL, refuseActingAbove } from './policy.js';
export {
  findUser,
  findUsersByEmail,
  isLastActiveOwner,
  lockUser,
  selfDeletionOf,
  statusBeforeSoftDelete,
} from './queries.js';
export { findUserRow, usersInSegment } from './published-reads.js';
export { principalStoreOn, queryUserAccess, type UserAccess } from './principal-queries.js';
export { LIVE_SUBSCRIPTION_STATUSES, userSegmentBody } from './segment.js';
export type { UserSegment } from './segment.js';
