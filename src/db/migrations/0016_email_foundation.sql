-- Outbound email, the shared part: templates with immutable versions, the suppression list
-- (who must get no marketing mail), and every message the service sends, queued in the
-- transaction of its cause and delivered by the dispatcher job through the mail transport
-- (SMTP, or the outbox of the embedded default, where a message is recorded and not sent).

CREATE TABLE email_templates (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The spec's template_key.
  key                text NOT NULL UNIQUE CHECK (key ~ '^[a-z][a-z0-9-]{1,63}$'),
  name               text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description        text CHECK (char_length(description) <= 500),
  -- Marketing mail carries List-Unsubscribe and is never sent to a suppressed address;
  -- transactional mail (receipts, security notices) is sent regardless.
  category           text NOT NULL DEFAULT 'marketing' CHECK (category IN ('marketing', 'transactional')),
  -- Null until a version is published: an unpublished template cannot be used.
  published_version  integer,
  published_at       timestamptz,
  -- No foreign keys to users (as the audit log): history outlives a hard-deleted staff member.
  created_by         uuid,
  updated_by         uuid,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  CHECK ((published_version IS NULL) = (published_at IS NULL))
);

CREATE TABLE email_template_versions (
  template_id  uuid NOT NULL REFERENCES email_templates (id) ON DELETE CASCADE,
  version      integer NOT NULL CHECK (version >= 1),
  subject      text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 300),
  html         text NOT NULL CHECK (char_length(html) BETWEEN 1 AND 200000),
  text         text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 100000),
  note         text CHECK (char_length(note) <= 500),
  created_by   uuid,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (template_id, version)
);

ALTER TABLE email_templates
  ADD CONSTRAINT email_templates_published_version_fkey
  FOREIGN KEY (id, published_version) REFERENCES email_template_versions (template_id, version);

-- A stored version is never edited: the database refuses it even if the code were to try.
CREATE FUNCTION email_template_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'email template versions are immutable' USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER email_template_versions_no_update
  BEFORE UPDATE ON email_template_versions
  FOR EACH ROW EXECUTE FUNCTION email_template_versions_immutable();

-- Addresses that get no marketing mail, lowercased: an unsubscribe (link or one-click), a hard
-- bounce, a complaint, or staff. Effective for every message not yet handed to the transport.
CREATE TABLE email_suppressions (
  email       text PRIMARY KEY CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 320),
  reason      text NOT NULL CHECK (reason IN ('unsubscribed', 'bounced', 'complained', 'manual')),
  -- How it came: 'one_click', 'link', 'staff', 'smtp'.
  source      text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 32),
  -- The message whose link or header was used, when there was one.
  message_id  uuid,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Every message, queued, then claimed by the dispatcher (status 'sending' with a lease,
-- committed before the transport is called), then 'sent' or 'failed'. A message whose lease ran
-- out mid-send (a crash) is never sent again: it is marked failed ('interrupted'), so no one
-- gets a message twice. 'held' messages (a paused campaign) are not picked up.
CREATE TABLE email_messages (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  to_email             text NOT NULL CHECK (char_length(to_email) BETWEEN 3 AND 320),
  -- A hard-deleted user's messages go with them: the address and content are their personal data.
  user_id              uuid REFERENCES users (id) ON DELETE CASCADE,
  category             text NOT NULL CHECK (category IN ('marketing', 'transactional')),
  -- A templated message is rendered when it is sent, from the version fixed at queueing and vars.
  template_id          uuid,
  template_version     integer,
  vars                 jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(vars) = 'object'),
  -- A message with literal content instead (no template): all three set.
  subject              text,
  html                 text,
  text                 text,
  -- What queued it (campaigns and broadcasts add their own references).
  campaign_id          uuid,
  broadcast_id         uuid,
  status               text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'skipped', 'cancelled')),
  held                 boolean NOT NULL DEFAULT false,
  attempts             integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at      timestamptz NOT NULL DEFAULT now(),
  lease_until          timestamptz,
  -- Why it failed or was skipped ('suppressed', 'interrupted', the transport's answer).
  last_error           text,
  transport            text CHECK (transport IN ('smtp', 'outbox')),
  transport_message_id text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  sent_at              timestamptz,
  CONSTRAINT email_messages_template_fkey FOREIGN KEY (template_id, template_version) REFERENCES email_template_versions (template_id, version),
  CONSTRAINT email_messages_content CHECK (
    (template_id IS NOT NULL AND template_version IS NOT NULL AND subject IS NULL AND html IS NULL AND text IS NULL)
    OR (template_id IS NULL AND template_version IS NULL AND subject IS NOT NULL AND html IS NOT NULL AND text IS NOT NULL)
  ),
  CONSTRAINT email_messages_lease CHECK ((status = 'sending') = (lease_until IS NOT NULL))
);
CREATE INDEX email_messages_due_idx ON email_messages (next_attempt_at, id) WHERE status = 'queued' AND NOT held;
CREATE INDEX email_messages_leased_idx ON email_messages (lease_until) WHERE status = 'sending';
CREATE INDEX email_messages_created_idx ON email_messages (created_at DESC, id);
CREATE INDEX email_messages_to_idx ON email_messages (lower(to_email), created_at);
CREATE INDEX email_messages_campaign_idx ON email_messages (campaign_id, status) WHERE campaign_id IS NOT NULL;
CREATE INDEX email_messages_broadcast_idx ON email_messages (broadcast_id) WHERE broadcast_id IS NOT NULL;
CREATE INDEX email_messages_user_idx ON email_messages (user_id) WHERE user_id IS NOT NULL;
-- Deleting a template checks its versions' references here.
CREATE INDEX email_messages_template_idx ON email_messages (template_id, template_version) WHERE template_id IS NOT NULL;


-- Secrets the service makes for itself, shared by every instance: the unsubscribe-link key when
-- neither EMAIL_TOKEN_SECRET nor JWT_SECRET is configured (a JWKS-only deployment).
CREATE TABLE service_secrets (
  name        text PRIMARY KEY,
  secret      text NOT NULL CHECK (char_length(secret) >= 32),
  created_at  timestamptz NOT NULL DEFAULT now()
);
