/** What other areas use of site settings. */
export { publishedValues } from './queries.js';
