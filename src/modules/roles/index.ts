/** What other areas use of roles. */
export { refuseActingOnRole, UNHELD_ROLE_KEYS_REFUSAL } from './policy.js';
export { writeRoleGrantFixture } from './fixtures.js';
