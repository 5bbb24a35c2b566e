-- What maintenance publishes of its panic row for other areas to read (issue 44, item 2): the
-- level alone. The incident monitor's database probe times a read of it; a lock on the row's table
-- holds the read up as it held the table's. A plain projection, inlined by the planner.
CREATE VIEW panic_level AS
SELECT level
  FROM ops_panic_state;
