-- Catalog (achievement definitions, the referral ruleset) and plans (rulesets, tiers).
-- The CHECKs repeat the API's bounds so a row written any other way obeys them too.

CREATE TABLE catalog_achievements (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Immutable after creation: nothing updates it.
  key            text NOT NULL UNIQUE CHECK (key ~ '^[a-z][a-z0-9_.-]{0,63}$'),
  name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description    text CHECK (char_length(description) <= 500),
  icon_path      text CHECK (char_length(icon_path) <= 500),
  reward_credits integer NOT NULL DEFAULT 0 CHECK (reward_credits BETWEEN 0 AND 1000000),
  is_active      boolean NOT NULL DEFAULT true,
  sort_order     integer NOT NULL DEFAULT 0 CHECK (sort_order BETWEEN -10000 AND 10000),
  created_by     uuid,
  updated_by     uuid,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalog_achievements_sort_idx ON catalog_achievements (sort_order, name, id);

-- One row: the referral programme as it applies now. `version` rises with every saved change,
-- so a console can refuse to overwrite a ruleset someone else changed since it was read.
CREATE TABLE catalog_referral_rules (
  singleton                boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  referrer_reward_credits  integer NOT NULL DEFAULT 0 CHECK (referrer_reward_credits BETWEEN 0 AND 1000000),
  referee_reward_credits   integer NOT NULL DEFAULT 0 CHECK (referee_reward_credits BETWEEN 0 AND 1000000),
  qualifying_event         text NOT NULL DEFAULT 'signup' CHECK (qualifying_event IN ('signup', 'first_purchase')),
  qualify_within_days      integer CHECK (qualify_within_days BETWEEN 1 AND 365),
  max_rewards_per_referrer integer CHECK (max_rewards_per_referrer BETWEEN 1 AND 1000000),
  is_active                boolean NOT NULL DEFAULT false,
  version                  integer NOT NULL DEFAULT 0 CHECK (version >= 0),
  updated_by               uuid,
  updated_at               timestamptz
);
INSERT INTO catalog_referral_rules DEFAULT VALUES;

CREATE TABLE plan_rulesets (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key         text NOT NULL UNIQUE CHECK (key ~ '^[a-z][a-z0-9_-]{0,47}$'),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text CHECK (char_length(description) <= 500),
  -- Free-form, read by the session service (pool_id, max_fps, ...).
  limits      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(limits) = 'object'),
  is_active   boolean NOT NULL DEFAULT true,
  updated_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE plan_tiers (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key         text NOT NULL UNIQUE CHECK (key ~ '^[a-z][a-z0-9_-]{0,31}$'),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  rank        integer NOT NULL CHECK (rank >= 0),
  -- A ruleset in use by a tier cannot disappear under it.
  ruleset_id  uuid NOT NULL REFERENCES plan_rulesets (id) ON DELETE RESTRICT,
  description text CHECK (char_length(description) <= 500),
  updated_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plan_tiers_rank_idx ON plan_tiers (rank, key);
CREATE INDEX plan_tiers_ruleset_idx ON plan_tiers (ruleset_id);
