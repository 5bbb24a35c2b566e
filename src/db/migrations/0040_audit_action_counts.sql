-- The audit list answers its total on every page. Filtered by action alone (`users.*`, or one
-- action), or not at all, as the console's log pages are, that total was a count of every
-- matching row: an index-only scan of 25,000 entries on the bench's data (2.7 ms), a read of the
-- heap once a fifth of the log's pages were newer than its last vacuum (13.8 ms), and longer for
-- good as the log only grows. The soak's 2 % of audit pages spent more of the database's CPU on
-- it than all its other requests together (bench/README.md). Triggers keep the number of entries
-- per action instead, in the transaction of each write: a reader sees exactly the committed rows
-- of its snapshot, and a total is a sum over the actions it matches (a few hundred rows).
--
-- Each action's count is spread over 16 slots, each transaction adding to the slot of its
-- backend, so audited writes committing together do not queue on one row's lock.
CREATE TABLE audit_action_counts (
  action text NOT NULL,
  slot   smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
  events bigint NOT NULL,
  PRIMARY KEY (action, slot)
);

INSERT INTO audit_action_counts (action, slot, events) SELECT action, 0, count(*) FROM audit_log GROUP BY action;

-- One function for the three statements: the entries each one added and removed, per action.
-- An UPDATE that leaves the action alone (the redaction of an erased user's entries) adds nothing.
CREATE FUNCTION count_audit_actions(added bigint, entry_action text, removed bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO audit_action_counts AS c (action, slot, events) VALUES (entry_action, pg_backend_pid() % 16, added - removed)
    ON CONFLICT (action, slot) DO UPDATE SET events = c.events + EXCLUDED.events
$$;

CREATE FUNCTION count_audit_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM count_audit_actions(count(*), action, 0) FROM added_entries GROUP BY action;
  RETURN NULL;
END $$;

CREATE FUNCTION count_audit_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM count_audit_actions(0, action, count(*)) FROM removed_entries GROUP BY action;
  RETURN NULL;
END $$;

CREATE FUNCTION count_audit_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM count_audit_actions(coalesce(n.added, 0), coalesce(n.action, o.action), coalesce(o.removed, 0))
    FROM (SELECT action, count(*) AS added FROM added_entries GROUP BY action) n
    FULL JOIN (SELECT action, count(*) AS removed FROM removed_entries GROUP BY action) o ON o.action = n.action
    WHERE coalesce(n.added, 0) <> coalesce(o.removed, 0);
  RETURN NULL;
END $$;

CREATE FUNCTION count_audit_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM audit_action_counts;
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
