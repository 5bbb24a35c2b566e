/** What other areas use of the alert subscriptions of roles. */
export { roleAlertChannel } from './alerts.js';
export { AlertSubscriptionService } from './service.js';
export { alertRoleKeysOf, alertRoleKeysOfUsers, roleKeysSubscribedTo } from './queries.js';
