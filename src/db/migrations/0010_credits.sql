-- Credits: an append-only ledger whose sum is the balance, and the lots that say which credits
-- are left and when they lapse. Every write for one user runs under a lock on that user's row
-- (src/modules/billing/credits/ledger.ts), so entries of one user are strictly ordered by id.

CREATE TABLE credit_ledger (
  -- An identity, not a uuid: within one user, id order is the order the writes happened in,
  -- which is what balance_after and "newest first" follow.
  id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id                 uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  amount                  integer NOT NULL,
  kind                    text NOT NULL CHECK (kind IN ('purchase', 'grant', 'gift', 'spend', 'refund_clawback', 'expiry', 'adjustment')),
  -- The user's balance right after this entry: a snapshot written once (never edited), so a
  -- statement reads without summing and an idempotent replay answers what the first call did.
  balance_after           bigint NOT NULL CHECK (balance_after >= 0),
  -- What the entry is about: ('payment', id) for a purchase and its clawback, ('credit_lot', id)
  -- for an expiry, whatever the caller names for a spend.
  reference_type          text,
  reference_id            text,
  -- The staff member who made it; null for the service itself. No foreign key, like the audit log.
  actor_id                uuid,
  reason                  text,
  -- Extra facts (a clawback's requested credits and shortfall).
  details                 jsonb NOT NULL DEFAULT '{}',
  -- One key, one write, across all users: callers prefix their keys ('grant:', 'stripe:…').
  idempotency_key         text UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 300),
  -- A hash of what was asked with the key: the same key asking something else is a conflict.
  idempotency_fingerprint text,
  -- The clock at the write (not the transaction's start), so time order matches id order.
  created_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT credit_ledger_idempotency_pair CHECK ((idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)),
  CONSTRAINT credit_ledger_reference_pair CHECK ((reference_type IS NULL) = (reference_id IS NULL)),
  -- Additions add, deductions deduct; an adjustment may go either way. A clawback of a pack
  -- already spent takes nothing but is still recorded (amount 0, the shortfall in details).
  CONSTRAINT credit_ledger_sign CHECK (
    (kind IN ('purchase', 'grant', 'gift') AND amount > 0)
    OR (kind IN ('spend', 'expiry') AND amount < 0)
    OR (kind = 'refund_clawback' AND amount <= 0)
    OR (kind = 'adjustment' AND amount <> 0)
  )
);
-- A user's statement (newest first) and balance (the sum).
CREATE INDEX credit_ledger_user_idx ON credit_ledger (user_id, id);
-- The staff list, by time and by kind.
CREATE INDEX credit_ledger_created_idx ON credit_ledger (created_at, id);
CREATE INDEX credit_ledger_kind_created_idx ON credit_ledger (kind, created_at, id);
-- A purchase's lots, found by its payment when it is refunded.
CREATE INDEX credit_ledger_reference_idx ON credit_ledger (reference_type, reference_id) WHERE reference_type IS NOT NULL;

-- Every addition is a lot: what it added, what is left of it, and when what is left lapses.
-- The balance always equals the sum of `remaining` (expired lots are zeroed by an expiry entry).
CREATE TABLE credit_lots (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The addition that made the lot.
  entry_id    bigint NOT NULL UNIQUE REFERENCES credit_ledger (id) ON DELETE CASCADE,
  amount      integer NOT NULL CHECK (amount > 0),
  remaining   integer NOT NULL,
  -- Null: never lapses.
  expires_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT credit_lots_remaining_range CHECK (remaining >= 0 AND remaining <= amount)
);
-- What a spend draws from: the user's lots with something left, earliest expiry first.
CREATE INDEX credit_lots_drawable_idx ON credit_lots (user_id, expires_at, id) WHERE remaining > 0;
-- What the expiry job looks for.
CREATE INDEX credit_lots_lapsing_idx ON credit_lots (expires_at) WHERE remaining > 0 AND expires_at IS NOT NULL;
CREATE INDEX credit_lots_created_idx ON credit_lots (created_at, id);

-- Which lots a deduction (spend, clawback, expiry, negative adjustment) took its credits from;
-- the amounts of one entry add up to minus its amount.
CREATE TABLE credit_lot_draws (
  entry_id  bigint NOT NULL REFERENCES credit_ledger (id) ON DELETE CASCADE,
  lot_id    bigint NOT NULL REFERENCES credit_lots (id) ON DELETE CASCADE,
  amount    integer NOT NULL CHECK (amount > 0),
  PRIMARY KEY (entry_id, lot_id)
);
CREATE INDEX credit_lot_draws_lot_idx ON credit_lot_draws (lot_id);

INSERT INTO scheduled_jobs (key, cron, description) VALUES
  ('expire-credit-lots', '*/15 * * * *', 'Writes an expiry ledger entry for what is left of each lapsed credit lot and zeroes it.');
