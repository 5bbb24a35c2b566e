/** What other areas use of email templates. */
export { findUsableTemplate } from './usable-template.js';
export type { UsableTemplate } from './usable-template.js';
