-- What billing credits publishes of each user's balance for other areas to read (issue 44, item 2):
-- the sum of the user's ledger entries, as credits' balanceOf sums them; a user without entries has
-- no row (a balance of 0). The users area shows it on a user's detail through this view instead of
-- credits' index, so credits can lock a credit account (its user row) through users' index without
-- an import circle. A filter on user_id is pushed below the grouping, so the read is the same index
-- scan of the user's entries as balanceOf's.
CREATE VIEW credit_balances AS
SELECT user_id, sum(amount)::bigint AS balance
  FROM credit_ledger
 GROUP BY user_id;
