-- Site settings: one free-form draft per section, and every published version kept.

CREATE TABLE site_settings (
  section           text PRIMARY KEY CHECK (section IN ('general', 'branding', 'seo', 'auth_ui', 'billing', 'credits', 'limits', 'support', 'legal', 'maintenance')),
  draft             jsonb NOT NULL DEFAULT '{}',
  draft_updated_by  uuid,
  draft_updated_at  timestamptz,
  published_version integer,
  published_value   jsonb,
  published_by      uuid,
  published_at      timestamptz
);

INSERT INTO site_settings (section)
SELECT unnest(ARRAY['general', 'branding', 'seo', 'auth_ui', 'billing', 'credits', 'limits', 'support', 'legal', 'maintenance']);

CREATE TABLE site_settings_versions (
  section          text NOT NULL REFERENCES site_settings (section),
  version          integer NOT NULL CHECK (version >= 1),
  value            jsonb NOT NULL,
  note             text,
  -- Set when this version re-published an older one (a rollback).
  restored_version integer,
  published_by     uuid,
  published_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (section, version)
);
