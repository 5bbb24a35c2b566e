/** What other areas use of email delivery. */
export { mailDispatcherFor } from './dispatcher.js';
export type { SettledMessage } from './dispatcher.js';
export { mailCountsOfBroadcasts } from './queries.js';
export { queueEmails, queueSelectedEmails } from './queue.js';
export type { LiteralContent, SelectedTemplatedEmail } from './queue.js';
