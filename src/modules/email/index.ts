/** What other areas use of the email family's shared files. */
export { isSuppressed, liftSuppression, suppressAsUnsubscribed, suppressionReason } from './suppressions.js';
export type { EmailCategory } from './tables.js';
