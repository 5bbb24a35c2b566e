/** What other areas use of the email family's shared files. */
export type { EmailCategory } from './tables.js';
