-- RFC 8628 device authorization (the launcher signs in with a code the player approves on the site).
-- One row per device code, from the request to its revocation. Secrets are kept only as SHA-256
-- hashes: the device code (what the launcher polls with) and the current refresh token.
-- status: pending until the player decides; approved or denied is final. Expiry is not a status:
-- a pending row past expires_at is expired. redeemed_at marks the one exchange of the device code.
CREATE TABLE device_authorizations (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id           text NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 64),
  scope               text CHECK (char_length(scope) <= 200),
  device_code_hash    text NOT NULL UNIQUE,
  -- Normalized (8 letters, no dash). Unique over every row so a code always names one request.
  user_code           text NOT NULL UNIQUE CHECK (user_code ~ '^[A-Z]{8}$'),
  status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  requester_ip        text,
  requester_user_agent text CHECK (char_length(requester_user_agent) <= 512),
  created_at          timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL,
  -- The polling interval in seconds: grows by 5 on each too-fast poll (RFC 8628 section 3.5).
  interval_seconds    integer NOT NULL CHECK (interval_seconds > 0),
  last_polled_at      timestamptz,
  user_id             uuid REFERENCES users (id) ON DELETE CASCADE,
  decided_at          timestamptz,
  redeemed_at         timestamptz,
  -- The session_id claim of every access token minted for this device: revoking it revokes them.
  session_id          text UNIQUE,
  refresh_token_hash  text UNIQUE,
  refresh_issued_at   timestamptz,
  last_used_at        timestamptz,
  last_used_ip        text,
  revoked_at          timestamptz,
  CONSTRAINT device_authorizations_decided_by_user CHECK (status = 'pending' OR (user_id IS NOT NULL AND decided_at IS NOT NULL)),
  CONSTRAINT device_authorizations_redeemed_when_approved CHECK (redeemed_at IS NULL OR (status = 'approved' AND session_id IS NOT NULL))
);
CREATE INDEX device_authorizations_user_idx ON device_authorizations (user_id, decided_at DESC) WHERE status = 'approved';
