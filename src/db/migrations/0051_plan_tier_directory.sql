-- What the plans area publishes of its tiers for other areas to read (issue 44, item 2): a tier's
-- key, name and rank, as the storefront and the credits page show them. A plain projection,
-- inlined by the planner as user_directory is (0048).
CREATE VIEW plan_tier_directory AS
SELECT key, name, rank
  FROM plan_tiers;
