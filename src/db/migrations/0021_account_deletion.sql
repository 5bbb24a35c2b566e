-- The player's own account deletion: one request per user, from the emailed code to the purge.
-- pending:   a code was mailed (only its hash is kept); the account is untouched.
-- voided:    too many wrong codes; a new request must be started.
-- confirmed: the account is soft-deleted; the purge job removes it at hard_delete_at.
-- The row goes with the user (cascade), and is removed when staff cancel the deletion.
CREATE TABLE account_deletion_requests (
  user_id          uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  status           text NOT NULL CHECK (status IN ('pending', 'voided', 'confirmed')),
  code_hash        text,
  code_expires_at  timestamptz NOT NULL,
  failed_attempts  integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  reason           text CHECK (char_length(reason) <= 500),
  requested_at     timestamptz NOT NULL DEFAULT now(),
  confirmed_at     timestamptz,
  hard_delete_at   timestamptz,
  CONSTRAINT account_deletion_requests_pending_has_code CHECK (status <> 'pending' OR code_hash IS NOT NULL),
  CONSTRAINT account_deletion_requests_confirmed_has_times CHECK (status <> 'confirmed' OR (confirmed_at IS NOT NULL AND hard_delete_at IS NOT NULL))
);
CREATE INDEX account_deletion_requests_due_idx ON account_deletion_requests (hard_delete_at) WHERE status = 'confirmed';

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('purge-deleted-accounts', '17 * * * *', 'Hard-deletes accounts whose owners deleted them and whose grace period has ended.');
