/** What other areas use of notifications. */
export type { NotificationView } from './schemas.js';
