/** What other areas use of site pages. */
export { publishedPagesIndex } from './queries.js';
