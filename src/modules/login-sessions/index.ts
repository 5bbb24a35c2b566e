// What other areas use of login sessions: ending one (a staff sign-out, a revoked device).
export { revokeSession } from './queries.js';
