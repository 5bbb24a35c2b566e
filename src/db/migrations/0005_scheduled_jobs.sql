-- Scheduled jobs (operation 17): the service's own periodic work and the history of its runs.

CREATE TABLE scheduled_jobs (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The name of the handler in code that does the work (src/modules/system/job-handlers.ts).
  key         text NOT NULL UNIQUE,
  -- Five fields (minute hour day-of-month month day-of-week), read in UTC.
  cron        text NOT NULL,
  description text NOT NULL DEFAULT '',
  active      boolean NOT NULL DEFAULT true,
  -- NULL while disabled; a new active job is scheduled by the first scheduler that sees it.
  next_run_at timestamptz,
  last_run_at timestamptz,
  last_result text CHECK (last_result IN ('ok', 'error')),
  last_error  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- What every scheduler poll asks: which active jobs are due?
CREATE INDEX scheduled_jobs_due_idx ON scheduled_jobs (next_run_at) WHERE active;

-- A run is written in the same transaction as its work, so a row here means the work committed
-- (or, with result 'error', that it was rolled back and why).
CREATE TABLE scheduled_job_runs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id       integer NOT NULL REFERENCES scheduled_jobs (id) ON DELETE CASCADE,
  trigger      text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
  -- The staff member who asked for a manual run; no foreign key, like the audit log.
  triggered_by uuid,
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz NOT NULL,
  result       text NOT NULL CHECK (result IN ('ok', 'error')),
  error        text,
  summary      jsonb NOT NULL DEFAULT '{}',
  instance_id  text NOT NULL
);
CREATE INDEX scheduled_job_runs_job_idx ON scheduled_job_runs (job_id, started_at DESC, id DESC);

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('expire-role-grants', '*/15 * * * *', 'Deletes role grants whose expires_at has passed.'),
  ('purge-event-outbox', '30 3 * * *', 'Deletes event outbox rows older than 7 days.');
