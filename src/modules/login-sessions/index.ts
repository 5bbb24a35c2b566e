// What other areas use of login sessions: ending one (a staff sign-out, a revoked device), and what
// the principal reads and records of one (src/modules/users/principal-queries.ts).
export {
  isSessionRevoked,
  recordSessionSighting,
  revokeSession,
  sessionLastSeenAt,
  type SessionSighting,
} from './queries.js';
