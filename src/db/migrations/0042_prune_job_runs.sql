-- Scheduled jobs' run history is kept 90 days (handler in src/modules/system/job-handlers.ts);
-- the index is the one its daily delete walks (the history's own index leads with job_id).
CREATE INDEX scheduled_job_runs_started_idx ON scheduled_job_runs (started_at);

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('prune-job-runs', '11 5 * * *', 'Deletes scheduled job run records started over 90 days ago (each job keeps its last outcome).');
