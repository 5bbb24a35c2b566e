/** What other areas use of email audiences. */
export { emailAddress, MAX_EMAIL_LENGTH } from './email-address.js';
export { mailableMembers } from './queries.js';
