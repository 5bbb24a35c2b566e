-- Content blocks: a draft per (surface, slot, locale) and the copy that is live.

CREATE TABLE content_blocks (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  surface      text NOT NULL CHECK (surface IN ('landing', 'portal')),
  slot         text NOT NULL,
  locale       text NOT NULL DEFAULT 'en',
  draft        jsonb NOT NULL,
  -- The live copy: set by publishing, kept while a newer draft is edited, cleared by unpublishing.
  published    jsonb,
  status       text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'archived')),
  sort_order   integer NOT NULL DEFAULT 0,
  published_at timestamptz,
  published_by uuid,
  updated_by   uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (surface, slot, locale)
);
CREATE INDEX content_blocks_live_idx ON content_blocks (surface, locale, sort_order) WHERE published IS NOT NULL AND status <> 'archived';
CREATE INDEX content_blocks_status_idx ON content_blocks (status, updated_at DESC);
