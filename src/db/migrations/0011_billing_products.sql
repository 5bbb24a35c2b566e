-- The billing catalog: what a player can buy (credit packs, plans) and at which prices.
-- Checkout (operation 6) resolves a product and its active price here; subscriptions, invoices
-- and payments refer to prices by their provider id, so a price is never deleted or edited:
-- a new price is made and the old one deactivated, as the payment provider itself does.

CREATE TABLE billing_products (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Immutable after creation (prices carry it, see below).
  kind        text NOT NULL CHECK (kind IN ('credit_pack', 'plan')),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text CHECK (char_length(description) <= 500),
  -- Credits one pack adds (times the quantity bought); capped so credits × 99 fits an integer.
  credits     integer CHECK (credits BETWEEN 1 AND 10000000),
  -- The tier a plan's subscribers get. A tier sold by a product cannot be deleted.
  tier_key    text REFERENCES plan_tiers (key) ON UPDATE CASCADE,
  is_active   boolean NOT NULL DEFAULT true,
  sort_order  integer NOT NULL DEFAULT 0 CHECK (sort_order BETWEEN -10000 AND 10000),
  metadata    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  -- No foreign keys to users (as the audit log): the catalog outlives a hard-deleted staff member.
  created_by  uuid,
  updated_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_products_kind_fields CHECK (
    (kind = 'credit_pack' AND credits IS NOT NULL AND tier_key IS NULL)
    OR (kind = 'plan' AND credits IS NULL AND tier_key IS NOT NULL)
  ),
  -- The target of the prices' (product_id, product_kind) reference.
  CONSTRAINT billing_products_id_kind_key UNIQUE (id, kind)
);
CREATE INDEX billing_products_sort_idx ON billing_products (sort_order, name, id);
CREATE INDEX billing_products_tier_idx ON billing_products (tier_key) WHERE tier_key IS NOT NULL;

CREATE TABLE billing_prices (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  product_id        uuid NOT NULL,
  -- A copy of the product's kind, held equal by the reference below, so the database itself
  -- knows that plan prices recur and pack prices do not.
  product_kind      text NOT NULL,
  -- Operation 6's `priceId`: the id the payment provider knows the price by.
  provider_price_id text NOT NULL CHECK (provider_price_id ~ '^[A-Za-z0-9_-]{1,255}$'),
  currency          text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  -- Minor units of the currency (cents); 0 is a free price.
  unit_amount       bigint NOT NULL CHECK (unit_amount BETWEEN 0 AND 999999999999),
  "interval"        text CHECK ("interval" IN ('month', 'year')),
  is_active         boolean NOT NULL DEFAULT true,
  created_by        uuid,
  updated_by        uuid,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_prices_provider_price_id_key UNIQUE (provider_price_id),
  -- Products with prices are never deleted: invoices and subscriptions lead back to them.
  CONSTRAINT billing_prices_product_fkey FOREIGN KEY (product_id, product_kind)
    REFERENCES billing_products (id, kind) ON DELETE RESTRICT,
  CONSTRAINT billing_prices_interval_by_kind CHECK (("interval" IS NOT NULL) = (product_kind = 'plan'))
);
-- One active price per product and currency: checkout resolves a product's price unambiguously.
CREATE UNIQUE INDEX billing_prices_one_active_per_currency ON billing_prices (product_id, currency) WHERE is_active;
CREATE INDEX billing_prices_product_idx ON billing_prices (product_id, created_at);

-- What a price charges is fixed once stored; only its active flag (and the bookkeeping of who
-- changed it when) may change. The database refuses anything else even if code were to try.
CREATE FUNCTION billing_prices_immutable_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.product_id, NEW.product_kind, NEW.provider_price_id, NEW.currency, NEW.unit_amount, NEW."interval", NEW.created_at, NEW.created_by)
     IS DISTINCT FROM
     (OLD.product_id, OLD.product_kind, OLD.provider_price_id, OLD.currency, OLD.unit_amount, OLD."interval", OLD.created_at, OLD.created_by) THEN
    RAISE EXCEPTION 'a billing price''s terms are immutable; create a new price' USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER billing_prices_terms_fixed
  BEFORE UPDATE ON billing_prices
  FOR EACH ROW EXECUTE FUNCTION billing_prices_immutable_terms();
