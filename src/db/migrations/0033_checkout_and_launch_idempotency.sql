-- Idempotency-Key on the player's checkout (operation 6) and on a campaign's launch: as with
-- refunds and broadcasts, the key and a hash of the request live on the effect's own row, written
-- with it, so a repeat finds the first answer there instead of acting again.

-- The checkout's answer is its provider id and URL: the URL is kept so a repeat can be answered
-- without asking the provider. A key is the player's own.
ALTER TABLE billing_checkout_sessions ADD COLUMN url text;
ALTER TABLE billing_checkout_sessions ADD COLUMN request_key text CHECK (char_length(request_key) BETWEEN 1 AND 200);
ALTER TABLE billing_checkout_sessions ADD COLUMN request_fingerprint text;
ALTER TABLE billing_checkout_sessions ADD CONSTRAINT billing_checkout_sessions_request_pair CHECK ((request_key IS NULL) = (request_fingerprint IS NULL));
CREATE UNIQUE INDEX billing_checkout_sessions_request_key_idx ON billing_checkout_sessions (user_id, request_key) WHERE request_key IS NOT NULL;

-- A campaign launches once; the staff member who launched it (null: the scheduler) owns the key.
ALTER TABLE email_campaigns ADD COLUMN launched_by uuid;
ALTER TABLE email_campaigns ADD COLUMN launch_request_key text CHECK (char_length(launch_request_key) BETWEEN 1 AND 200);
ALTER TABLE email_campaigns ADD COLUMN launch_request_fingerprint text;
ALTER TABLE email_campaigns ADD CONSTRAINT email_campaigns_launch_request_pair CHECK ((launch_request_key IS NULL) = (launch_request_fingerprint IS NULL));
ALTER TABLE email_campaigns ADD CONSTRAINT email_campaigns_launch_request_owner CHECK (launch_request_key IS NULL OR launched_by IS NOT NULL);
CREATE UNIQUE INDEX email_campaigns_launch_request_key_idx ON email_campaigns (launched_by, launch_request_key) WHERE launch_request_key IS NOT NULL;
