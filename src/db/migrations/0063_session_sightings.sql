-- What the login-sessions area publishes of its sessions' sightings for other areas to read (issue
-- 44, item 2): when a user's session was last seen, as the principal of every signed-in request
-- reads it (users' principal lookup). A plain projection, inlined by the planner as
-- user_directory is (0048): the lookup stays one probe of login_sessions' primary key.
CREATE VIEW session_sightings AS
SELECT user_id, session_id, last_seen_at
  FROM login_sessions;
