-- Whether a job deletes (or zeroes) data, so staff are asked before running it by hand: said by
-- the job's definition, not guessed from its description. A job added later sets it in its INSERT.
ALTER TABLE scheduled_jobs ADD COLUMN deletes_data boolean NOT NULL DEFAULT false;

UPDATE scheduled_jobs SET deletes_data = true WHERE key IN (
  'expire-role-grants',
  'purge-event-outbox',
  'expire-credit-lots',
  'purge-deleted-accounts',
  'purge-device-authorizations',
  'prune-login-sessions',
  'expire-storage-uploads',
  'sweep-orphan-objects',
  'prune-job-runs'
);
