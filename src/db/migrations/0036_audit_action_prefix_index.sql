-- The audit list's `action=users.*` filter is a LIKE prefix match. Under a database collation other
-- than C, LIKE cannot use the (action, created_at) btree at all; text_pattern_ops compares bytes,
-- so the prefix becomes an index range. Measured on the bench's 50,000 rows (half matching): the
-- total and the facet counts went from 12.7 and 14.5 ms to 8.1 and 8.6 ms (index-only scans).
CREATE INDEX audit_log_action_prefix_idx ON audit_log (action text_pattern_ops);
