-- Kernel: people, roles and their grants, the audit log, the event outbox and the panic state.

CREATE TABLE users (
  id            uuid PRIMARY KEY,
  email         text,
  display_name  text,
  provider      text,
  status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'banned', 'deleted')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz
);
CREATE INDEX users_email_lower_idx ON users (lower(email));
CREATE INDEX users_created_at_idx ON users (created_at, id);

CREATE TABLE roles (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key          text NOT NULL UNIQUE,
  name         text NOT NULL,
  description  text,
  -- Built-in roles (owner) are protected: their permissions and the role itself never change.
  is_protected boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE role_permissions (
  role_id        uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  permission_key text NOT NULL,
  PRIMARY KEY (role_id, permission_key)
);

CREATE TABLE user_roles (
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id    uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  granted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  reason     text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role_idx ON user_roles (role_id);

INSERT INTO roles (id, key, name, description, is_protected)
VALUES ('00000000-0000-4000-8000-000000000001', 'owner', 'Owner',
        'Holds every permission. Built in; cannot be changed or deleted.', true);
INSERT INTO role_permissions (role_id, permission_key)
VALUES ('00000000-0000-4000-8000-000000000001', '*');

-- No foreign key to users: the audit trail outlives a hard-deleted actor or target.
CREATE TABLE audit_log (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_id    uuid,
  action      text NOT NULL,
  target_type text,
  target_id   text,
  request_id  text,
  ip          text,
  user_agent  text,
  reason      text,
  summary     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, created_at DESC);
CREATE INDEX audit_log_action_idx ON audit_log (action, created_at DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id, created_at DESC);

CREATE TABLE event_outbox (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind       text NOT NULL CHECK (kind IN ('dashboard', 'alert')),
  name       text NOT NULL,
  payload    jsonb NOT NULL DEFAULT '{}',
  actor_id   uuid,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX event_outbox_created_idx ON event_outbox (created_at);

-- One row: the maintenance level every instance enforces.
CREATE TABLE ops_panic_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  level     text NOT NULL DEFAULT 'off' CHECK (level IN ('off', 'degraded', 'lockdown')),
  reason    text,
  set_by    uuid,
  set_at    timestamptz,
  auto      boolean NOT NULL DEFAULT false
);
INSERT INTO ops_panic_state (singleton, level) VALUES (true, 'off');
