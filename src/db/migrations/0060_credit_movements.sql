-- What billing credits publishes of its ledger for the rest of the family to read (issue 44, item
-- 2): each entry's kind, amount and time, as the overview sums movements by kind and the balance
-- of every user together. A plain projection, inlined by the planner as user_directory is (0048).
CREATE VIEW credit_movements AS
SELECT kind, amount, created_at
  FROM credit_ledger;
