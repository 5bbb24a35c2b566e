-- A player's edit of their own profile (display name, locale, time zone, avatar) changed the
-- user row, so it notified the user's id and every instance dropped the principal as well as the
-- profile: in the soak, one PATCH /v1/me in ten requests made the player's next request of any
-- kind query its principal again. The principal reads none of those columns.
--
-- Now an update that leaves every other column as it was notifies 'profile:' followed by the id:
-- profile caches drop the user, principal caches keep them (src/kernel/user-cache.ts). The
-- columns are named as those that may change *without* an account notice, so a column added
-- later notifies everyone, as before, until it is named here. During a rolling deploy, an instance
-- still on the previous release does not know the prefix: it drops nothing for such a notice, and
-- shows a profile edit made elsewhere once its entry's age cap passes (at most 30 s there).
CREATE OR REPLACE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  profile_columns CONSTANT text[] := ARRAY['display_name', 'locale', 'timezone', 'avatar_key', 'profile_updated_at', 'updated_at'];
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce_user_change(OLD.id::text);
  ELSIF TG_OP = 'UPDATE' AND to_jsonb(OLD) - profile_columns = to_jsonb(NEW) - profile_columns THEN
    PERFORM announce_user_change('profile:' || NEW.id::text);
  ELSE
    PERFORM announce_user_change(NEW.id::text);
  END IF;
  RETURN NULL;
END $$;
