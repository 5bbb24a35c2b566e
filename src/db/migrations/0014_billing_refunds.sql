-- Refunds staff made of a payment (POST /v1/admin/billing/payments/{id}/refund). Each row is one
-- refund the provider accepted; the payment's amount_refunded is the running total. A credit-pack
-- refund also records the credits it took back and those already spent (the shortfall).

CREATE TABLE billing_refunds (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  payment_id           uuid NOT NULL REFERENCES billing_payments (id) ON DELETE CASCADE,
  user_id              uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider_refund_id   text NOT NULL CHECK (char_length(provider_refund_id) BETWEEN 1 AND 255),
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  reason               text NOT NULL CHECK (char_length(reason) BETWEEN 3 AND 500),
  credits_clawed_back  integer NOT NULL DEFAULT 0 CHECK (credits_clawed_back >= 0),
  shortfall            integer NOT NULL DEFAULT 0 CHECK (shortfall >= 0),
  -- No foreign key (as the audit log): a refund's record outlives a hard-deleted staff member.
  actor_id             uuid,
  created_at           timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_refunds_provider_refund_id_key UNIQUE (provider_refund_id)
);
CREATE INDEX billing_refunds_payment_idx ON billing_refunds (payment_id, created_at);
CREATE INDEX billing_refunds_user_idx ON billing_refunds (user_id, created_at);
