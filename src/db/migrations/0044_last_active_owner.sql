-- The last-active-owner rule, kept by the database itself: whatever path takes owner rights away
-- (a revoke, an expiry put on a grant, a ban, a deletion, a hard delete's cascade, an edit of the
-- owner role), the transaction doing it cannot commit while no active owner remains. Services
-- answer the refusal as one domain error (src/modules/users/owner-guard.ts).

-- Who counts as an owner, defined once (the guard below and the services' early answers read it):
-- an active user holding the built-in owner role without an expiry, while that role holds `*`.
-- An expiring grant does not count: time alone would end it.
CREATE VIEW active_owners AS
SELECT g.user_id
  FROM user_roles g
  JOIN users u ON u.id = g.user_id AND u.status = 'active'
  JOIN role_permissions p ON p.role_id = g.role_id AND p.permission_key = '*'
 WHERE g.role_id = '00000000-0000-4000-8000-000000000001' AND g.expires_at IS NULL;

-- Runs at commit (the triggers are deferred), so a transaction may hand the role over in any order.
-- The advisory lock queues such commits: two transactions each removing one of the last two owners
-- check one after the other, and the second (its count taken after the first committed) is refused.
CREATE FUNCTION keep_an_active_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Someone leaving `active` matters only if they own without an expiry. (A permanent grant
  -- removed in the same transaction fires the user_roles trigger, which does not skip.)
  -- (Nested: plpgsql does not promise to skip NEW, unset on a delete, after a false TG_TABLE_NAME test.)
  IF TG_TABLE_NAME = 'users' THEN
    IF NOT EXISTS (
      SELECT 1 FROM user_roles
       WHERE user_id = NEW.id AND role_id = '00000000-0000-4000-8000-000000000001' AND expires_at IS NULL
    ) THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('last_active_owner', 0));
  IF NOT EXISTS (SELECT 1 FROM active_owners) THEN
    RAISE EXCEPTION 'no active owner would remain'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'last_active_owner',
            HINT = 'grant the owner role, without an expiry, to another active user first';
  END IF;
  RETURN NULL;
END $$;

-- A permanent owner grant removed, or turned into an expiring (or another) grant.
CREATE CONSTRAINT TRIGGER user_roles_keep_an_owner_delete AFTER DELETE ON user_roles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.role_id = '00000000-0000-4000-8000-000000000001' AND OLD.expires_at IS NULL)
  EXECUTE FUNCTION keep_an_active_owner();
CREATE CONSTRAINT TRIGGER user_roles_keep_an_owner_update AFTER UPDATE ON user_roles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.role_id = '00000000-0000-4000-8000-000000000001' AND OLD.expires_at IS NULL
        AND (NEW.expires_at IS NOT NULL OR NEW.role_id <> OLD.role_id OR NEW.user_id <> OLD.user_id))
  EXECUTE FUNCTION keep_an_active_owner();

-- An active user banned or deleted (a hard delete removes their grants: the triggers above).
CREATE CONSTRAINT TRIGGER users_keep_an_owner AFTER UPDATE OF status ON users
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status = 'active' AND NEW.status <> 'active')
  EXECUTE FUNCTION keep_an_active_owner();

-- The owner role losing `*` (deleting the role removes it, and its grants, by cascade).
CREATE CONSTRAINT TRIGGER role_permissions_keep_an_owner_delete AFTER DELETE ON role_permissions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.role_id = '00000000-0000-4000-8000-000000000001' AND OLD.permission_key = '*')
  EXECUTE FUNCTION keep_an_active_owner();
CREATE CONSTRAINT TRIGGER role_permissions_keep_an_owner_update AFTER UPDATE ON role_permissions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.role_id = '00000000-0000-4000-8000-000000000001' AND OLD.permission_key = '*')
  EXECUTE FUNCTION keep_an_active_owner();
