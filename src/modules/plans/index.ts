/** What other areas use of plans. */
export { planLimitsOf, shareLockTier } from './queries.js';
