/** What other areas use of the alert subscriptions of roles. */
export { roleAlertChannel } from './alerts.js';
export { alertRoleKeysOf, roleKeysSubscribedTo } from './queries.js';
