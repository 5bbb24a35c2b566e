-- Billing records: what the payment provider told the service about a player's money.
-- Checkout (operation 6) writes customers and checkout sessions; fulfilment of the provider's
-- events writes payments, invoices and subscriptions, and keeps each event id once in
-- billing_webhook_events, in the same transaction as its effects, so a redelivery is a no-op.
-- Money is integer minor units with a lowercase ISO 4217 currency.

-- A player's customer at the provider, made on first checkout and reused. One per user: when the
-- configured provider changes (local → stripe), the row is re-pointed at the new provider's customer.
CREATE TABLE billing_customers (
  user_id               uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  provider              text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_customer_id  text NOT NULL CHECK (char_length(provider_customer_id) BETWEEN 1 AND 255),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_customers_provider_id_key UNIQUE (provider, provider_customer_id)
);

CREATE TABLE billing_checkout_sessions (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider              text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_checkout_id  text NOT NULL,
  product_id            uuid NOT NULL REFERENCES billing_products (id),
  price_id              uuid NOT NULL REFERENCES billing_prices (id),
  mode                  text NOT NULL CHECK (mode IN ('payment', 'subscription')),
  quantity              integer NOT NULL CHECK (quantity BETWEEN 1 AND 99),
  status                text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed', 'expired')),
  success_url           text NOT NULL,
  cancel_url            text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  completed_at          timestamptz,
  CONSTRAINT billing_checkout_sessions_provider_checkout_id_key UNIQUE (provider_checkout_id),
  CONSTRAINT billing_checkout_sessions_plan_single_seat CHECK (mode = 'payment' OR quantity = 1)
);
CREATE INDEX billing_checkout_sessions_user_idx ON billing_checkout_sessions (user_id, created_at);

-- Money received: a credit pack bought at checkout, or a subscription invoice paid.
CREATE TABLE billing_payments (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider              text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_payment_id   text NOT NULL,
  product_id            uuid REFERENCES billing_products (id),
  price_id              uuid REFERENCES billing_prices (id),
  kind                  text NOT NULL CHECK (kind IN ('credit_pack', 'subscription')),
  quantity              integer NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 99),
  -- Credits the payment added to the ledger (credit packs: credits × quantity); refunds claw back from it.
  credits               integer CHECK (credits > 0),
  amount                bigint NOT NULL CHECK (amount >= 0),
  currency              text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  amount_refunded       bigint NOT NULL DEFAULT 0 CHECK (amount_refunded BETWEEN 0 AND amount),
  status                text NOT NULL DEFAULT 'succeeded' CHECK (status IN ('succeeded', 'partially_refunded', 'refunded')),
  checkout_session_id   uuid REFERENCES billing_checkout_sessions (id) ON DELETE SET NULL,
  provider_invoice_id   text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_payments_provider_id_key UNIQUE (provider, provider_payment_id)
);
CREATE INDEX billing_payments_user_idx ON billing_payments (user_id, created_at);

CREATE TABLE billing_invoices (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id                   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider                  text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_invoice_id       text NOT NULL,
  provider_subscription_id  text,
  provider_payment_id       text,
  status                    text NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
  amount_due                bigint NOT NULL CHECK (amount_due >= 0),
  amount_paid               bigint NOT NULL CHECK (amount_paid >= 0),
  currency                  text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  hosted_url                text,
  period_start              timestamptz,
  period_end                timestamptz,
  -- When the provider made the invoice; last_event_at orders its events (an older one never rolls back).
  created_at                timestamptz NOT NULL,
  last_event_at             timestamptz NOT NULL,
  CONSTRAINT billing_invoices_provider_id_key UNIQUE (provider, provider_invoice_id)
);
CREATE INDEX billing_invoices_user_idx ON billing_invoices (user_id, created_at);

-- Every provider event processed, by id: a redelivery finds its id here and does nothing.
CREATE TABLE billing_webhook_events (
  provider     text NOT NULL CHECK (provider IN ('local', 'stripe')),
  event_id     text NOT NULL,
  type         text NOT NULL,
  occurred_at  timestamptz NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

ALTER TABLE billing_subscriptions
  ADD CONSTRAINT billing_subscriptions_product_fkey FOREIGN KEY (product_id) REFERENCES billing_products (id),
  ADD COLUMN provider_customer_id text,
  ADD COLUMN canceled_at timestamptz,
  -- The provider time of the newest event applied: an older event never rolls the row back.
  ADD COLUMN last_event_at timestamptz;
