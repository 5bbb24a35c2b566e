/** What other areas use of the public store: a published game (game sessions start one). */
export { publishedGameById } from './queries.js';
