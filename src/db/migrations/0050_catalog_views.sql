-- What the billing catalog publishes for the rest of the family to read (issue 44, item 2): its
-- products and prices as a subscription, a gift, the credits page and the overview name and price
-- them. Plain projections, inlined by the planner as user_directory is (0048).
CREATE VIEW catalog_products AS
SELECT id, kind, name, credits, tier_key, is_active, sort_order
  FROM billing_products;

CREATE VIEW catalog_prices AS
SELECT id, product_id, provider_price_id, currency, unit_amount, "interval", is_active
  FROM billing_prices;
