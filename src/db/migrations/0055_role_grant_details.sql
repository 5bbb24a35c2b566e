-- The roles area's published views (0049) grow by what a user's detail and the acting-above check
-- read (issue 44, item 2): who granted a role, why and when (appended to role_grants: CREATE OR
-- REPLACE VIEW keeps the columns readers have and adds these after them), and which permission
-- keys each role carries. Plain projections, inlined by the planner as user_directory is (0048).
CREATE OR REPLACE VIEW role_grants AS
SELECT user_id, role_id, expires_at, granted_by, reason, created_at
  FROM user_roles;

CREATE VIEW role_permission_keys AS
SELECT role_id, permission_key
  FROM role_permissions;
