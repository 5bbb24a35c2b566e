-- What billing checkout publishes of its records for the rest of the family to read (issue 44,
-- item 2): the provider's id of a customer, an invoice and a payment (the overview's deep links),
-- and a payment's amount, currency and time (the overview's sums per bucket). Plain projections,
-- inlined by the planner as user_directory is (0048).
CREATE VIEW customer_directory AS
SELECT user_id, provider, provider_customer_id
  FROM billing_customers;

CREATE VIEW invoice_directory AS
SELECT id, provider, provider_invoice_id
  FROM billing_invoices;

CREATE VIEW payment_directory AS
SELECT id, provider, provider_payment_id, amount, currency, created_at
  FROM billing_payments;
