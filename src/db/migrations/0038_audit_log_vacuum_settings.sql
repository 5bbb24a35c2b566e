-- audit_log only grows. Autovacuum's default insert threshold (1,000 + 20 % of the rows) lets a
-- fifth of its pages go unmarked in the visibility map between two vacuums, and past about that
-- share the planner stops counting a filter's matches with an index-only scan (2.7 ms on the
-- bench's 25,000 `users.*` rows) and reads the heap instead (13.8 ms): measured with 30,000 rows
-- appended unvacuumed to 112,000, while 10,000 kept the index-only scan. The soak's audit totals
-- doubled the database's CPU that way (bench/README.md). Vacuuming every 10,000 new rows,
-- whatever the table's size, keeps the share small; a vacuum of an append-only table only visits
-- the pages added since the last one.
ALTER TABLE audit_log SET (autovacuum_vacuum_insert_threshold = 10000, autovacuum_vacuum_insert_scale_factor = 0);
