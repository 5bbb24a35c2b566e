-- A checkout is fulfilled from what this service stored when it made it, never from the provider
-- event's metadata: that is whatever the maker of a checkout wrote, and a signed event for a
-- checkout made elsewhere on the provider account (a payment link, another integration) granted
-- the credits its metadata named. The credits one unit of a pack adds are fixed at checkout (a
-- later catalog edit does not change what was bought), so the checkout row keeps them.
ALTER TABLE billing_checkout_sessions ADD COLUMN credits integer CHECK (credits BETWEEN 1 AND 10000000);
-- Checkouts still open get their pack's credits as of now (what their metadata said, unless the
-- catalog changed since); completed and expired ones are never fulfilled again.
UPDATE billing_checkout_sessions AS c SET credits = p.credits
  FROM billing_products AS p
  WHERE p.id = c.product_id AND c.mode = 'payment' AND c.status = 'open';

-- Why a recorded event was not acted on (a checkout this service did not make, no known user);
-- null: it was applied.
ALTER TABLE billing_webhook_events ADD COLUMN ignored_reason text;
