/** What other areas use of email audiences. */
export { emailAddress, MAX_EMAIL_LENGTH } from './email-address.js';
export { audienceExists, audienceNameOf, countMembers, mailableMembers } from './queries.js';
