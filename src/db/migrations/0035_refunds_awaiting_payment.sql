-- Refunds the payment provider reported before the payment they refund was recorded. Webhook
-- events arrive in any order (a checkout event that failed once is redelivered hours after the
-- refund's), and answering the refund's event with 200 while dropping it lost the refund for good:
-- no clawback of the pack's credits, the payment shown as not refunded. Such a refund waits here,
-- keyed by the provider's refund id (its latest reported state wins), and is recorded by the
-- transaction that records its payment. Rows of payments that never arrive (another product on the
-- same provider account) stay as a record of what was reported.
CREATE TABLE billing_refunds_awaiting_payment (
  provider             text NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_refund_id   text NOT NULL CHECK (char_length(provider_refund_id) BETWEEN 1 AND 255),
  provider_payment_id  text NOT NULL,
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL,
  status               text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  reason               text NOT NULL,
  -- The reporting event's time: an older report never replaces a newer one.
  reported_at          timestamptz NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, provider_refund_id)
);
CREATE INDEX billing_refunds_awaiting_payment_payment_idx ON billing_refunds_awaiting_payment (provider, provider_payment_id);
