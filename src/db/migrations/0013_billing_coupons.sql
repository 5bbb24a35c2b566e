-- Coupons and promotion codes: created at the payment provider (which applies them at checkout)
-- and mirrored here so staff can list them without a provider round trip. A coupon is never
-- deleted here: deleting it at the provider marks the row deleted, keeping its history, and
-- deactivates its promotion codes.

CREATE TABLE billing_coupons (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider_coupon_id text NOT NULL CHECK (char_length(provider_coupon_id) BETWEEN 1 AND 255),
  name               text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- Exactly one kind of discount: a percentage (two decimals) or an amount in minor units.
  percent_off        numeric(5, 2) CHECK (percent_off > 0 AND percent_off <= 100),
  amount_off         bigint CHECK (amount_off BETWEEN 1 AND 999999999999),
  currency           text CHECK (currency ~ '^[a-z]{3}$'),
  duration           text NOT NULL CHECK (duration IN ('once', 'repeating', 'forever')),
  duration_in_months integer CHECK (duration_in_months BETWEEN 1 AND 36),
  max_redemptions    integer CHECK (max_redemptions > 0),
  redeem_by          timestamptz,
  deleted_at         timestamptz,
  -- No foreign keys to users (as the audit log): coupons outlive a hard-deleted staff member.
  created_by         uuid,
  deleted_by         uuid,
  created_at         timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_coupons_provider_coupon_id_key UNIQUE (provider_coupon_id),
  CONSTRAINT billing_coupons_one_discount CHECK ((percent_off IS NULL) <> (amount_off IS NULL)),
  CONSTRAINT billing_coupons_currency_with_amount CHECK ((amount_off IS NULL) = (currency IS NULL)),
  CONSTRAINT billing_coupons_months_iff_repeating CHECK ((duration = 'repeating') = (duration_in_months IS NOT NULL))
);
CREATE INDEX billing_coupons_created_idx ON billing_coupons (created_at, id);

CREATE TABLE billing_promotion_codes (
  id                         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider_promotion_code_id text NOT NULL CHECK (char_length(provider_promotion_code_id) BETWEEN 1 AND 255),
  coupon_id                  uuid NOT NULL REFERENCES billing_coupons (id) ON DELETE RESTRICT,
  -- What the player types; stored as entered, unique whatever its case (see the index).
  code                       text NOT NULL CHECK (code ~* '^[A-Z0-9][A-Z0-9_-]{2,49}$'),
  max_redemptions            integer CHECK (max_redemptions > 0),
  expires_at                 timestamptz,
  first_time_only            boolean NOT NULL DEFAULT false,
  active                     boolean NOT NULL DEFAULT true,
  created_by                 uuid,
  updated_by                 uuid,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_promotion_codes_provider_id_key UNIQUE (provider_promotion_code_id)
);
CREATE UNIQUE INDEX billing_promotion_codes_code_key ON billing_promotion_codes (upper(code));
CREATE INDEX billing_promotion_codes_coupon_idx ON billing_promotion_codes (coupon_id, created_at);
