-- Email audiences (named lists of addresses that campaigns are sent to; operation 9 replaces a
-- list whole) and the public waitlist. Addresses are stored lowercased, as the suppression list
-- holds them, so "is this member suppressed?" is an equality join.

CREATE TABLE email_audiences (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description  text CHECK (char_length(description) <= 500),
  -- No foreign keys to users (as the audit log): an audience outlives a hard-deleted staff member.
  created_by   uuid,
  updated_by   uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_audiences_created_idx ON email_audiences (created_at DESC, id);

CREATE TABLE email_audience_members (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  audience_id  uuid NOT NULL REFERENCES email_audiences (id) ON DELETE CASCADE,
  email        text NOT NULL CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 320),
  -- The account behind the address: given as a `user_id` member, or found by address at import.
  -- A hard-deleted user's address leaves every audience with them (it is their personal data);
  -- a banned or soft-deleted one stays listed and is counted as not mailable.
  user_id      uuid REFERENCES users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Also the index of "members of an audience, by address" (listing, counting, replacing).
  CONSTRAINT email_audience_members_address_key UNIQUE (audience_id, email)
);
CREATE INDEX email_audience_members_user_idx ON email_audience_members (user_id) WHERE user_id IS NOT NULL;

-- People who asked to hear when the platform opens. One row per address: signing up again changes
-- nothing (the first source and referrer stay), so the public route can answer the same either way.
CREATE TABLE waitlist_signups (
  email       text PRIMARY KEY CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 320),
  source      text CHECK (char_length(source) BETWEEN 1 AND 100),
  referrer    text CHECK (char_length(referrer) BETWEEN 1 AND 500),
  -- Where the signup came from (abuse review); the client IP as the service saw it.
  ip          text CHECK (char_length(ip) <= 100),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX waitlist_signups_created_idx ON waitlist_signups (created_at DESC, email);

-- The staff list of suppressions, newest first.
CREATE INDEX email_suppressions_created_idx ON email_suppressions (created_at DESC, email);
