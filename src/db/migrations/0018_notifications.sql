-- In-app notifications and broadcasts (operation 19).
-- A notification is one piece of content; who sees it is either everyone (one row that also
-- reaches users who sign up later: an in-app broadcast to an empty segment) or the users listed
-- in notification_recipients (one row per recipient). A broadcast is the staff operation that
-- made a notification and/or queued an email to a segment.

CREATE TABLE notification_broadcasts (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  segment                 jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(segment) = 'object'),
  -- Users the segment matched; null for an in-app broadcast to everyone.
  recipients              integer CHECK (recipients >= 0),
  notifications_created   integer CHECK (notifications_created >= 0),
  email_template_id       uuid REFERENCES email_templates (id) ON DELETE SET NULL,
  email_template_version  integer,
  emails_queued           integer CHECK (emails_queued >= 0),
  -- No foreign key to users (as the audit log): history outlives a hard-deleted staff member.
  created_by              uuid,
  created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_broadcasts_created_idx ON notification_broadcasts (created_at DESC, id);

CREATE TABLE notifications (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  broadcast_id  uuid REFERENCES notification_broadcasts (id) ON DELETE SET NULL,
  audience      text NOT NULL CHECK (audience IN ('everyone', 'recipients')),
  kind          text NOT NULL DEFAULT 'info' CHECK (kind IN ('info', 'success', 'warning', 'billing', 'social', 'system')),
  title         text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  body          text CHECK (char_length(body) <= 4000),
  action_url    text CHECK (char_length(action_url) <= 2000),
  -- Shown from starts_at (null: at once) until ends_at (null: for good).
  starts_at     timestamptz,
  ends_at       timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at)
);
CREATE INDEX notifications_everyone_idx ON notifications (created_at DESC, id) WHERE audience = 'everyone';

-- Who a 'recipients' notification is for, and when each read it. For an 'everyone' notification a
-- row appears when a user reads it (that is how its read state is kept per user).
CREATE TABLE notification_recipients (
  notification_id  uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  read_at          timestamptz,
  PRIMARY KEY (user_id, notification_id)
);
CREATE INDEX notification_recipients_notification_idx ON notification_recipients (notification_id);
CREATE INDEX notification_recipients_unread_idx ON notification_recipients (user_id) WHERE read_at IS NULL;
