-- Site pages: a slug and title, immutable markdown versions, and which version (if any) is live.
-- Announcements: banners shown on a surface within an optional time window.

CREATE TABLE site_pages (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug              text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,127}$'),
  title             text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  -- Null while unpublished; otherwise one of this page's versions (foreign key below).
  published_version integer,
  published_at      timestamptz,
  published_by      uuid,
  -- No foreign keys to users (as the audit log): history outlives a hard-deleted staff member.
  created_by        uuid,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((published_version IS NULL) = (published_at IS NULL))
);
CREATE INDEX site_pages_updated_idx ON site_pages (updated_at DESC, id);

CREATE TABLE site_page_versions (
  page_id    uuid NOT NULL REFERENCES site_pages (id) ON DELETE CASCADE,
  version    integer NOT NULL CHECK (version >= 1),
  markdown   text NOT NULL CHECK (char_length(markdown) BETWEEN 1 AND 200000),
  note       text CHECK (char_length(note) <= 500),
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (page_id, version)
);

ALTER TABLE site_pages
  ADD CONSTRAINT site_pages_published_version_fkey
  FOREIGN KEY (id, published_version) REFERENCES site_page_versions (page_id, version);

-- A stored version is never edited: the database refuses it even if the code were to try.
CREATE FUNCTION site_page_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'site page versions are immutable' USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER site_page_versions_no_update
  BEFORE UPDATE ON site_page_versions
  FOR EACH ROW EXECUTE FUNCTION site_page_versions_immutable();

CREATE TABLE announcements (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title      text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  body       text NOT NULL DEFAULT '' CHECK (char_length(body) <= 4000),
  severity   text NOT NULL DEFAULT 'info' CHECK (severity IN ('info', 'success', 'warning', 'critical')),
  surface    text NOT NULL DEFAULT 'all' CHECK (surface IN ('landing', 'portal', 'all')),
  action_url text CHECK (char_length(action_url) <= 2000),
  -- The window: shown from starts_at (or always) until ends_at (or forever), while is_active.
  starts_at  timestamptz,
  ends_at    timestamptz,
  is_active  boolean NOT NULL DEFAULT true,
  created_by uuid,
  updated_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at)
);
CREATE INDEX announcements_live_idx ON announcements (surface, starts_at) WHERE is_active;
CREATE INDEX announcements_created_idx ON announcements (created_at DESC, id);
