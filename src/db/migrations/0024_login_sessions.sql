-- Login sessions: each sign-in session the service has seen a token of (the token's
-- `session_id` claim, or for a token without one its "token family": `loginSessionIdOf` in
-- src/kernel/principal.ts). The principal query reads the row on every signed-in request
-- and writes it only when the session is new or last seen over a minute ago.
-- Whether a session has been ended is not kept here: `revoked_sessions` (0008) is the one record
-- of revocation, written by the player's own revocation and by staff sign-out alike, and
-- `users.tokens_valid_after` ends every session at once.

CREATE TABLE login_sessions (
  -- Hard-deleting a user removes their sessions with them.
  user_id                  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id               text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 200),
  first_seen_at            timestamptz NOT NULL,
  last_seen_at             timestamptz NOT NULL,
  -- The client as the service sees it (request.ip, so behind TRUST_PROXY the forwarded address).
  first_ip                 text CHECK (char_length(first_ip) <= 100),
  last_ip                  text CHECK (char_length(last_ip) <= 100),
  user_agent               text CHECK (char_length(user_agent) <= 512),
  -- The launcher sign-in a session came from is found through device_authorizations.session_id.
  PRIMARY KEY (user_id, session_id)
);

-- The caller's list, newest activity first.
CREATE INDEX login_sessions_user_last_seen_idx ON login_sessions (user_id, last_seen_at DESC);
