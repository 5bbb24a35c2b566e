-- Game sessions: the history of every game a player started on the Runtime service.
-- The id is chosen by the service and handed to the runtime as the session id, so a retried
-- create is idempotent there. The member token the runtime returns is never stored.

CREATE TABLE game_sessions (
  id          uuid PRIMARY KEY,
  -- Hard-deleting a user removes their history with them.
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The game as it was at start: the row may go, the snapshot stays readable.
  game_id     integer REFERENCES store_games (id) ON DELETE SET NULL,
  game_slug   text NOT NULL,
  game_title  text NOT NULL,
  pool_id     text,
  node_id     text,
  status      text NOT NULL DEFAULT 'starting' CHECK (status IN ('starting', 'active', 'ended', 'failed')),
  end_reason  text CHECK (end_reason IN ('user_stopped', 'staff_stopped', 'runtime_ended', 'start_failed')),
  -- Who stopped it (the player or a staff member); no foreign key, like the audit trail.
  stopped_by  uuid,
  play_url    text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  started_at  timestamptz,
  ended_at    timestamptz,
  -- A live session has no end; a finished one says why it ended.
  CONSTRAINT game_sessions_end_check CHECK (
    (status IN ('starting', 'active') AND end_reason IS NULL AND ended_at IS NULL)
    OR (status IN ('ended', 'failed') AND end_reason IS NOT NULL AND ended_at IS NOT NULL)
  )
);

-- One live session per player, decided by the database even when two starts race.
CREATE UNIQUE INDEX game_sessions_one_live_per_user ON game_sessions (user_id) WHERE status IN ('starting', 'active');

-- The lists are newest first with the keyset (created_at, id): one index per filter, each
-- ending in the keyset so a filtered page is an index range scan.
CREATE INDEX game_sessions_created_idx ON game_sessions (created_at, id);
CREATE INDEX game_sessions_user_created_idx ON game_sessions (user_id, created_at, id);
CREATE INDEX game_sessions_status_created_idx ON game_sessions (status, created_at, id);
CREATE INDEX game_sessions_pool_created_idx ON game_sessions (pool_id, created_at, id) WHERE pool_id IS NOT NULL;
CREATE INDEX game_sessions_game_created_idx ON game_sessions (game_id, created_at, id) WHERE game_id IS NOT NULL;
