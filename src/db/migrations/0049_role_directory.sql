-- What the roles area publishes for other areas to read (issue 44, item 2): a role's id, key and
-- name (an audit entry about a role, an alert subscription naming one), and who holds which role
-- until when (an alert reaches the holders of a subscribed role). Plain projections, inlined by
-- the planner as user_directory is (0048): a join to them plans as the join to their table did.
CREATE VIEW role_directory AS
SELECT id, key, name
  FROM roles;

CREATE VIEW role_grants AS
SELECT user_id, role_id, expires_at
  FROM user_roles;
