-- Email campaigns (operations 11 and 18): a template sent to an audience. Launching snapshots the
-- audience's mailable members into email_messages (campaign_id), which the dispatcher delivers
-- at the configured rate, each at most once; pausing holds the queued rest, resuming releases it.
--
-- Statuses: draft → scheduled (a time set) → sending → sent; sending ⇄ paused (staff);
-- sending → failed (stopped after too many consecutive delivery failures; resumable);
-- any but sent → cancelled (the queued rest is dropped).

CREATE TABLE email_campaigns (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name                      text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  template_id               uuid NOT NULL REFERENCES email_templates (id),
  -- The version fixed at launch (the published one then); null before.
  template_version          integer,
  audience_id               uuid REFERENCES email_audiences (id) ON DELETE SET NULL,
  vars                      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(vars) = 'object'),
  status                    text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled', 'failed')),
  scheduled_at              timestamptz,
  -- Stop (status failed) after this many failures in a row with no success between.
  max_consecutive_failures  integer NOT NULL DEFAULT 10 CHECK (max_consecutive_failures BETWEEN 1 AND 10000),
  consecutive_failures      integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  -- Members snapshotted at launch, and those left out (unsubscribed, banned or deleted users).
  recipients                integer CHECK (recipients >= 0),
  excluded                  integer CHECK (excluded >= 0),
  status_reason             text CHECK (char_length(status_reason) <= 500),
  launched_at               timestamptz,
  completed_at              timestamptz,
  -- No foreign keys to users (as the audit log): history outlives a hard-deleted staff member.
  created_by                uuid,
  updated_by                uuid,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT email_campaigns_scheduled_has_time CHECK (status <> 'scheduled' OR scheduled_at IS NOT NULL),
  CONSTRAINT email_campaigns_template_version_fkey FOREIGN KEY (template_id, template_version) REFERENCES email_template_versions (template_id, version)
);
CREATE INDEX email_campaigns_created_idx ON email_campaigns (created_at DESC, id);
CREATE INDEX email_campaigns_due_idx ON email_campaigns (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX email_campaigns_audience_idx ON email_campaigns (audience_id, status) WHERE audience_id IS NOT NULL;

ALTER TABLE email_messages
  ADD CONSTRAINT email_messages_campaign_fkey FOREIGN KEY (campaign_id) REFERENCES email_campaigns (id) ON DELETE CASCADE;
-- A campaign sends each address once, whatever happens to the launch.
CREATE UNIQUE INDEX email_messages_campaign_address_key ON email_messages (campaign_id, lower(to_email)) WHERE campaign_id IS NOT NULL;

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('launch-scheduled-campaigns', '* * * * *', 'Launches email campaigns whose scheduled time has come.');
