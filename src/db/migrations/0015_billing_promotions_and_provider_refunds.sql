-- Promotion codes at checkout, refunds the payment provider reports on its own, and staff
-- refund retries.

-- The promotion code a player entered at checkout. Completed checkouts that carry it are the
-- code's redemptions (its max_redemptions limit counts them).
ALTER TABLE billing_checkout_sessions
  ADD COLUMN promotion_code_id uuid REFERENCES billing_promotion_codes (id);
CREATE INDEX billing_checkout_sessions_promotion_idx ON billing_checkout_sessions (promotion_code_id, status)
  WHERE promotion_code_id IS NOT NULL;

ALTER TABLE billing_refunds
  -- 'staff': made through POST /v1/admin/billing/payments/{id}/refund. 'provider': made elsewhere
  -- (the provider's dashboard) or recorded from the provider's event when the staff request's own
  -- write was lost; its actor is null.
  ADD COLUMN source text NOT NULL DEFAULT 'staff' CHECK (source IN ('staff', 'provider')),
  -- The staff request's Idempotency-Key and a hash of its body: a repeat answers this refund again.
  ADD COLUMN request_key text CHECK (char_length(request_key) BETWEEN 1 AND 200),
  ADD COLUMN request_fingerprint text,
  ADD CONSTRAINT billing_refunds_request_pair CHECK ((request_key IS NULL) = (request_fingerprint IS NULL)),
  ADD CONSTRAINT billing_refunds_payment_request_key UNIQUE (payment_id, request_key);

-- Which payment paid which invoice. Stripe's current API versions no longer name the payment on
-- `invoice.paid`; `invoice_payment.paid` does, and may arrive before or after the invoice itself.
-- Each link is kept as it arrives; once both the link and the invoice are here, the payment is
-- recorded in billing_payments (whichever event comes second does it).
CREATE TABLE billing_invoice_payments (
  provider             text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_invoice_id  text NOT NULL,
  provider_payment_id  text NOT NULL,
  amount               bigint NOT NULL CHECK (amount >= 0),
  currency             text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, provider_invoice_id, provider_payment_id)
);
