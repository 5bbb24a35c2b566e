/** What other areas use of ops. */
export { changePanicLevel } from './panic-change.js';
export type { PanicChangeDeps } from './panic-change.js';
