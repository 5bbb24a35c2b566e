-- What the login-sessions area publishes of its revocations for other areas to read (issue 44,
-- item 2): which session of a user was ended on its own, as a device's refresh and the list of a
-- player's devices check it. A plain projection, inlined by the planner as user_directory is (0048):
-- the lookup stays one probe of revoked_sessions' primary key.
CREATE VIEW session_revocations AS
SELECT user_id, session_id
  FROM revoked_sessions;
