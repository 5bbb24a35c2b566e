-- Incident monitoring (issue 10): the service sets and clears its own maintenance level when its
-- dependencies fail. Every instance counts signals in memory and flushes them here every few
-- seconds; whichever instance holds the panic row's lock evaluates the rules over the sum.

-- The monitor names itself in set_by ('incident-monitor'); people are still named by user id.
ALTER TABLE ops_panic_state ALTER COLUMN set_by TYPE text USING set_by::text;

-- One row per instance, signal and flush: what that instance saw since its previous flush.
-- value_sum carries latency milliseconds (database_latency); ratios use failures / total.
CREATE TABLE incident_signal_samples (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id text NOT NULL,
  signal      text NOT NULL,
  recorded_at timestamptz NOT NULL,
  total       integer NOT NULL CHECK (total >= 0),
  failures    integer NOT NULL CHECK (failures >= 0 AND failures <= total),
  value_sum   double precision NOT NULL DEFAULT 0
);
CREATE INDEX incident_signal_samples_recorded_idx ON incident_signal_samples (recorded_at, signal);

-- Rules, edited by staff as one list. The state columns belong to the monitor and survive edits.
CREATE TABLE incident_rules (
  key               text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_-]{0,47}$'),
  signal            text NOT NULL CHECK (signal IN ('http_5xx', 'database_errors', 'database_latency', 'runtime', 'payments', 'mail')),
  threshold         double precision NOT NULL CHECK (threshold >= 0),
  window_seconds    integer NOT NULL CHECK (window_seconds > 0),
  min_requests      integer NOT NULL CHECK (min_requests > 0),
  level             text NOT NULL CHECK (level IN ('degraded', 'lockdown')),
  auto_clear        boolean NOT NULL,
  hold_seconds      integer NOT NULL CHECK (hold_seconds >= 0),
  cooldown_seconds  integer NOT NULL CHECK (cooldown_seconds >= 0),
  enabled           boolean NOT NULL DEFAULT true,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        uuid,
  -- Monitor state: whether this rule holds the current automatic level; breached (as of the
  -- last evaluation) since; healthy since; its last automatic change; silenced by a person's
  -- `off` until; the last measurement.
  holding           boolean NOT NULL DEFAULT false,
  breached_since    timestamptz,
  healthy_since     timestamptz,
  last_change_at    timestamptz,
  silenced_until    timestamptz,
  last_evaluated_at timestamptz,
  last_value        double precision,
  last_total        integer
);

INSERT INTO incident_rules (key, signal, threshold, window_seconds, min_requests, level, auto_clear, hold_seconds, cooldown_seconds, enabled) VALUES
  ('runtime-failing',  'runtime',          0.5,  60,  5,  'degraded', true, 120, 300, true),
  ('database-failing', 'database_errors',  0.5,  60,  5,  'lockdown', true, 120, 300, true),
  ('database-slow',    'database_latency', 2000, 60,  5,  'degraded', true, 120, 300, true),
  ('server-errors',    'http_5xx',         0.25, 120, 50, 'degraded', true, 300, 600, true),
  ('payments-failing', 'payments',         0.5,  300, 5,  'degraded', true, 300, 600, true),
  ('mail-failing',     'mail',             0.5,  300, 20, 'degraded', true, 300, 600, false);

-- Every change of the level, by a person or by the monitor, with what the monitor measured.
CREATE TABLE ops_panic_changes (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at     timestamptz NOT NULL,
  level          text NOT NULL CHECK (level IN ('off', 'degraded', 'lockdown')),
  previous_level text NOT NULL CHECK (previous_level IN ('off', 'degraded', 'lockdown')),
  auto           boolean NOT NULL,
  reason         text,
  set_by         text,
  rule_key       text,
  -- The tripping (or clearing) rule's measurement, and every signal over its window.
  measurement    jsonb,
  signals        jsonb
);
CREATE INDEX ops_panic_changes_created_idx ON ops_panic_changes (created_at DESC, id DESC);
