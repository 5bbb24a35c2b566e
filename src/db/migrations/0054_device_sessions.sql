-- What the device-authorization area publishes for other areas to read (issue 44, item 2): which
-- authorization a launcher's session came from (its tokens carry the session id it recorded), as
-- a user's list of sessions shows it. A plain projection, inlined by the planner as user_directory
-- is (0048).
CREATE VIEW device_sessions AS
SELECT id, user_id, session_id
  FROM device_authorizations;
