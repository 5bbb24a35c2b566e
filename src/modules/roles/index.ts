/** What other areas use of roles. */
export { deleteGrantsExpiredBy, lockRoleKey } from './queries.js';
export { refuseActingOnRole, UNHELD_ROLE_KEYS_REFUSAL } from './policy.js';
export { writeRoleGrantFixture } from './fixtures.js';
export { grantedPermissionKeysOf, grantsChangeAtOf, grantsInForceOf } from './grant-fragments.js';
