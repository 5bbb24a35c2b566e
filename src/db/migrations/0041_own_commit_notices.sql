-- A write's own instance must forget what the write changed before the write's promise resolves
-- (read-your-writes: a sign-out everywhere, then the old token at once, is refused). Until now
-- every pooled connection LISTENed on `platform_api_user_changes` to hear its own NOTIFY at
-- COMMIT, so PostgreSQL woke every pooled connection of every instance for every notice: with 10
-- per instance, 0.21 ms of database CPU and 0.04 ms of service CPU per notice, about 1,100 backend
-- wake-ups a second at the soak's 110 notices.
--
-- Instead, a session that asks for it (`platform_api.own_commit_notices = on`, set by the
-- service's pooled connections) is also told of each change as a NOTICE with SQLSTATE PA001:
-- channel in the message, payload in the detail. A NOTICE goes to that session alone and at once
-- (before COMMIT); the service holds it until the connection is out of its transaction. Other
-- instances still hear the NOTIFY on their one dedicated listener; hand-run SQL and the embedded
-- database (which delivers its own notices at COMMIT) see no NOTICE.
CREATE FUNCTION announce_user_change(who text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_api_user_changes', who);
  IF current_setting('platform_api.own_commit_notices', true) = 'on' THEN
    RAISE NOTICE USING MESSAGE = 'platform_api_user_changes', DETAIL = who, ERRCODE = 'PA001';
  END IF;
END $$;

CREATE OR REPLACE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce_user_change(OLD.id::text);
  ELSE
    PERFORM announce_user_change(NEW.id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_user_change_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM announce_user_change(OLD.user_id::text);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM announce_user_change(NEW.user_id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_user_change_of_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM announce_user_change('*');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION notify_user_change_of_address() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM announce_user_change(u.id::text) FROM users u WHERE lower(u.email) = OLD.email;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM announce_user_change(u.id::text) FROM users u WHERE lower(u.email) = NEW.email;
  END IF;
  RETURN NULL;
END $$;
