-- Every instance keeps rows about the users of recent requests in memory (src/kernel/user-cache.ts):
-- the principal (status, email, sign-out instant, last sighting, the login session's state, the
-- permissions and roles of unexpired grants) and the profile (the user row, the address's
-- suppression). Any change to a row they read notifies `platform_api_user_changes` with the user's
-- id ('*': every user), so no write path, present or future, service or hand-run SQL, can leave a
-- revoked session, a ban or a removed permission cached. NOTIFY is transactional: instances hear
-- it once the change commits, never when it rolls back. Identical notices in one transaction are
-- delivered once.

CREATE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('platform_api_user_changes', OLD.id::text);
  ELSE
    PERFORM pg_notify('platform_api_user_changes', NEW.id::text);
  END IF;
  RETURN NULL;
END $$;

-- Tables whose rows belong to one user through `user_id`.
CREATE FUNCTION notify_user_change_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('platform_api_user_changes', OLD.user_id::text);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('platform_api_user_changes', NEW.user_id::text);
  END IF;
  RETURN NULL;
END $$;

-- A role's permissions or name reach every holder: forget everyone (role edits are rare).
CREATE FUNCTION notify_user_change_of_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_api_user_changes', '*');
  RETURN NULL;
END $$;

-- An update that changes nothing (a ban of the banned) notifies nobody.
CREATE TRIGGER users_notify_update AFTER UPDATE ON users
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION notify_user_change();
CREATE TRIGGER users_notify_delete AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_user_change();

-- Suppressions are kept by address (lower case); the profile's marketing preference reads them.
CREATE FUNCTION notify_user_change_of_address() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('platform_api_user_changes', u.id::text) FROM users u WHERE lower(u.email) = OLD.email;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('platform_api_user_changes', u.id::text) FROM users u WHERE lower(u.email) = NEW.email;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER email_suppressions_notify AFTER INSERT OR UPDATE OR DELETE ON email_suppressions
  FOR EACH ROW EXECUTE FUNCTION notify_user_change_of_address();

CREATE TRIGGER user_roles_notify AFTER INSERT OR UPDATE OR DELETE ON user_roles FOR EACH ROW EXECUTE FUNCTION notify_user_change_of_row();
CREATE TRIGGER revoked_sessions_notify AFTER INSERT OR UPDATE OR DELETE ON revoked_sessions FOR EACH ROW EXECUTE FUNCTION notify_user_change_of_row();
CREATE TRIGGER login_sessions_notify AFTER INSERT OR UPDATE OR DELETE ON login_sessions FOR EACH ROW EXECUTE FUNCTION notify_user_change_of_row();

CREATE TRIGGER role_permissions_notify AFTER INSERT OR UPDATE OR DELETE ON role_permissions FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER roles_notify AFTER UPDATE OR DELETE ON roles FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();

-- TRUNCATE fires no row triggers.
CREATE TRIGGER users_notify_truncate AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER user_roles_notify_truncate AFTER TRUNCATE ON user_roles FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER revoked_sessions_notify_truncate AFTER TRUNCATE ON revoked_sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER login_sessions_notify_truncate AFTER TRUNCATE ON login_sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER role_permissions_notify_truncate AFTER TRUNCATE ON role_permissions FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER email_suppressions_notify_truncate AFTER TRUNCATE ON email_suppressions FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
