-- Alerts (kernel events of kind 'alert', e.g. panic_mode_changed) reach the roles subscribed to
-- them: each role has a realtime channel `alerts:<role key>`, joined by the role's holders.
CREATE TABLE role_alert_subscriptions (
  role_id     uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  alert       text NOT NULL CHECK (alert ~ '^[a-z][a-z0-9_]{0,63}$'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role_id, alert)
);
-- Delivery looks up the roles of one alert.
CREATE INDEX role_alert_subscriptions_alert_idx ON role_alert_subscriptions (alert);
-- The built-in owner hears every maintenance change.
INSERT INTO role_alert_subscriptions (role_id, alert) VALUES ('00000000-0000-4000-8000-000000000001', 'panic_mode_changed');

-- Support attachments are uploaded like avatars: an intent per signed upload, checked when a
-- ticket message names it. PDFs and plain text besides images.
ALTER TABLE storage_uploads DROP CONSTRAINT storage_uploads_purpose_check;
ALTER TABLE storage_uploads ADD CONSTRAINT storage_uploads_purpose_check CHECK (purpose IN ('avatar', 'support_attachment'));
ALTER TABLE storage_uploads DROP CONSTRAINT storage_uploads_content_type_check;
ALTER TABLE storage_uploads ADD CONSTRAINT storage_uploads_content_type_check
  CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp', 'application/pdf', 'text/plain'));
