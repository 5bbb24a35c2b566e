/** What other areas use of content blocks. */
export { liveBlocks } from './queries.js';
