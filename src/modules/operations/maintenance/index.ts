/** What other areas use of ops. */
export { changePanicLevel } from './panic-change.js';
export { lockPanicStateUnlessBusy } from './queries.js';
