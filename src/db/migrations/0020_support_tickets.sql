-- Support tickets (issue 7, "Support"): a player writes to support, staff answer and close.
-- A ticket is 'open' while it waits on staff (new, or the player wrote again), 'answered' once
-- staff replied and it waits on the player, and 'closed' when staff closed it (staff may reopen).

CREATE TABLE support_tickets (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  subject          text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
  category         text NOT NULL CHECK (category IN ('account', 'billing', 'technical', 'abuse', 'other')),
  status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'closed')),
  -- Last activity (a message, a close or reopen): the staff queue sorts on it.
  updated_at       timestamptz NOT NULL DEFAULT now(),
  closed_at        timestamptz,
  -- No foreign key to users (as the audit log): the record outlives a hard-deleted staff member.
  closed_by        uuid,
  close_reason     text CHECK (char_length(close_reason) <= 500),
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
CREATE INDEX support_tickets_user_idx ON support_tickets (user_id, created_at DESC, id);
CREATE INDEX support_tickets_queue_idx ON support_tickets (status, updated_at DESC, id);

-- The conversation: the player's first message and follow-ups, and staff replies.
CREATE TABLE support_messages (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  ticket_id        uuid NOT NULL REFERENCES support_tickets (id) ON DELETE CASCADE,
  author           text NOT NULL CHECK (author IN ('player', 'staff')),
  -- The player (the ticket's user) or the staff member; no foreign key, as closed_by.
  author_id        uuid,
  body             text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 10000),
  -- Storage object keys as the player gave them; not yet checked against storage.
  attachment_keys  jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attachment_keys) = 'array'),
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX support_messages_ticket_idx ON support_messages (ticket_id, created_at, id);
