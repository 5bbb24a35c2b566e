// What other areas use of login sessions: ending one (a staff sign-out, a revoked device), and
// recording one's sighting (users' part of the principal, src/modules/users/principal-queries.ts).
export { recordSessionSighting, revokeSession, type SessionSighting } from './queries.js';
