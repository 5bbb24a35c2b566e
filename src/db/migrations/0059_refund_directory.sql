-- What billing payments publishes of its refunds for the rest of the family to read (issue 44,
-- item 2): a refund's amount, currency and time, as the overview sums them per bucket. A plain
-- projection, inlined by the planner as user_directory is (0048).
CREATE VIEW refund_directory AS
SELECT id, amount, currency, created_at
  FROM billing_refunds;
