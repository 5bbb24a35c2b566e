-- What the billing family publishes of its subscriptions for other areas to read (issue 44, item
-- 2): a user's subscription as their detail shows it and a segment filter matches it. A plain
-- projection, inlined by the planner as user_directory is (0048): billing_subscriptions' index on
-- user_id serves a read through it.
CREATE VIEW subscription_directory AS
SELECT id, user_id, provider, status, product_id, provider_price_id, cancel_at_period_end, current_period_end,
       created_at
  FROM billing_subscriptions;
