-- The audit list answers its total on every page. Filtered by action alone (`users.*`, or one
-- action), or not at all, as the console's log pages are, that total was a count of every
-- matching row: an index-only scan of 25,000 entries on the bench's data (2.7 ms), a read of the
-- heap once a fifth of the log's pages were newer than its last vacuum (13.8 ms), and longer for
-- good as the log only grows. Triggers keep the number of entries per action instead, in the
-- transaction of each write: a reader sees exactly the committed rows of its snapshot, and a
-- total is a sum over the actions it matches.
--
-- The counts are spread over 16 slots, each transaction adding to the slot of its backend, so
-- audited writes committing together do not queue on one row's lock. A slot holds every action's
-- count in one row (action → entries), so a transaction locks one row however many actions it
-- audits: with a row per action and slot, two transactions sharing a slot and auditing two
-- actions in opposite orders would deadlock.
CREATE TABLE audit_count_slots (
  slot    smallint PRIMARY KEY CHECK (slot BETWEEN 0 AND 15),
  actions jsonb NOT NULL
);

INSERT INTO audit_count_slots (slot, actions)
  SELECT 0, coalesce(jsonb_object_agg(action, entries), '{}')
    FROM (SELECT action, count(*) AS entries FROM audit_log GROUP BY action) counted;

-- Adds a statement's changes (action → entries added, negative when removed) to its backend's slot.
CREATE FUNCTION add_audit_counts(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF changes IS NULL OR changes = '{}' THEN
    RETURN;
  END IF;
  INSERT INTO audit_count_slots AS s (slot, actions) VALUES (pg_backend_pid() % 16, changes)
    ON CONFLICT (slot) DO UPDATE SET actions = (
      SELECT coalesce(jsonb_object_agg(key, total), '{}')
        FROM (SELECT key, sum(value::bigint) AS total
                FROM (SELECT * FROM jsonb_each_text(s.actions) UNION ALL SELECT * FROM jsonb_each_text(EXCLUDED.actions)) both_sides
               GROUP BY key
              HAVING sum(value::bigint) <> 0) merged);
END $$;

CREATE FUNCTION count_audit_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_audit_counts((SELECT jsonb_object_agg(action, n) FROM (SELECT action, count(*) AS n FROM added_entries GROUP BY action) c));
  RETURN NULL;
END $$;

CREATE FUNCTION count_audit_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_audit_counts((SELECT jsonb_object_agg(action, -n) FROM (SELECT action, count(*) AS n FROM removed_entries GROUP BY action) c));
  RETURN NULL;
END $$;

-- An UPDATE that leaves the action alone (the redaction of an erased user's entries) adds nothing.
CREATE FUNCTION count_audit_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_audit_counts((SELECT jsonb_object_agg(action, n) FROM (
    SELECT action, sum(n) AS n FROM (
      SELECT action, 1 AS n FROM added_entries UNION ALL SELECT action, -1 FROM removed_entries
    ) changes GROUP BY action HAVING sum(n) <> 0) c));
  RETURN NULL;
END $$;

CREATE FUNCTION count_audit_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM audit_count_slots;
  RETURN NULL;
END $$;

CREATE TRIGGER audit_log_count_insert AFTER INSERT ON audit_log
  REFERENCING NEW TABLE AS added_entries FOR EACH STATEMENT EXECUTE FUNCTION count_audit_inserted();
CREATE TRIGGER audit_log_count_delete AFTER DELETE ON audit_log
  REFERENCING OLD TABLE AS removed_entries FOR EACH STATEMENT EXECUTE FUNCTION count_audit_deleted();
CREATE TRIGGER audit_log_count_update AFTER UPDATE ON audit_log
  REFERENCING OLD TABLE AS removed_entries NEW TABLE AS added_entries FOR EACH STATEMENT EXECUTE FUNCTION count_audit_updated();
CREATE TRIGGER audit_log_count_truncate AFTER TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION count_audit_truncated();
