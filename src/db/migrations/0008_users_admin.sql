-- Users administration: what staff see and change about a person, and what billing will fill in.

ALTER TABLE users
  -- The plan tier the user is on (null: no tier, the free experience). Billing sets it; staff may too.
  ADD COLUMN tier text REFERENCES plan_tiers (key) ON UPDATE CASCADE ON DELETE SET NULL,
  ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}',
  -- Why and by whom the status last changed (a ban's reason, a soft deletion's reason).
  ADD COLUMN status_reason text,
  ADD COLUMN status_changed_at timestamptz,
  ADD COLUMN status_changed_by uuid,
  ADD COLUMN deleted_at timestamptz,
  -- Tokens issued before this instant are refused: staff "sign out everywhere".
  ADD COLUMN tokens_valid_after timestamptz;

CREATE INDEX users_status_created_idx ON users (status, created_at, id);
CREATE INDEX users_last_seen_idx ON users (last_seen_at, id);
CREATE INDEX users_tier_idx ON users (tier) WHERE tier IS NOT NULL;
CREATE INDEX users_provider_idx ON users (provider);

-- A player's plan subscription at the payment provider, as billing records it. The users
-- filters (has_subscription) and the profile's subscription summary read it; billing writes it.
CREATE TABLE billing_subscriptions (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id                   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider                  text NOT NULL,
  provider_subscription_id  text NOT NULL,
  product_id                uuid,
  provider_price_id         text,
  status                    text NOT NULL CHECK (status IN ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused')),
  cancel_at_period_end      boolean NOT NULL DEFAULT false,
  current_period_end        timestamptz,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_subscriptions_provider_id_key UNIQUE (provider, provider_subscription_id)
);
CREATE INDEX billing_subscriptions_user_idx ON billing_subscriptions (user_id, status);

-- Sign-in sessions ended before their tokens expire (staff sign-out of one session; the
-- player's own "sign out that device"). Tokens carrying a listed `session_id` are refused.
CREATE TABLE revoked_sessions (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id  text NOT NULL,
  revoked_at  timestamptz NOT NULL DEFAULT now(),
  revoked_by  uuid,
  PRIMARY KEY (user_id, session_id)
);
