/** What other areas use of notifications. */
export { broadcastNotificationOf, type DeliveredNotification } from './queries.js';
export type { NotificationView } from './schemas.js';
