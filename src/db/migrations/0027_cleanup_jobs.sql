-- Scheduled clean-ups of what players' sign-ins and uploads leave behind (handlers in
-- src/modules/system/job-handlers.ts), with the indexes their deletes walk.

-- Device codes that never became a device, and revoked devices after a month.
CREATE INDEX device_authorizations_unredeemed_expiry_idx ON device_authorizations (expires_at) WHERE redeemed_at IS NULL;
CREATE INDEX device_authorizations_revoked_idx ON device_authorizations (revoked_at) WHERE revoked_at IS NOT NULL;
-- Sessions unseen for 90 days.
CREATE INDEX login_sessions_last_seen_idx ON login_sessions (last_seen_at);
-- Upload intents never confirmed.
CREATE INDEX storage_uploads_unconfirmed_expiry_idx ON storage_uploads (expires_at) WHERE confirmed_at IS NULL;

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('purge-device-authorizations', '23 * * * *', 'Deletes device codes a day past expiry that never became a device, and devices revoked over 30 days ago.'),
  ('prune-login-sessions', '41 3 * * *', 'Forgets login sessions not seen for 90 days (their revocations are kept).'),
  ('expire-storage-uploads', '*/30 * * * *', 'Deletes upload intents never confirmed an hour past expiry, and avatars replaced over a day ago, with their stored objects.'),
  ('sweep-orphan-objects', '53 4 * * *', 'Deletes stored objects under avatars/ and support/ that no upload or avatar names (e.g. of purged accounts).');
