-- What the billing coupons area publishes for checkout to read (issue 44, item 2): a promotion code
-- as a checkout matches it (upper(code): 0013's unique index serves it through the view) and counts its
-- redemptions, and what of its coupon limits its use. Plain projections, inlined by the planner as
-- user_directory is (0048).
CREATE VIEW coupon_directory AS
SELECT id, currency, max_redemptions, redeem_by, deleted_at
  FROM billing_coupons;

CREATE VIEW promotion_code_directory AS
SELECT id, provider_promotion_code_id, coupon_id, code, max_redemptions, expires_at, first_time_only, active
  FROM billing_promotion_codes;
