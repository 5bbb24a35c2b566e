-- Store: games (integer ids, as the spec says) and the genres, developers and publishers they
-- link to. The CHECKs repeat the spec's input bounds so no writer can store what the API refuses.

CREATE TABLE store_games (
  id                  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug                text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,127}$'),
  title               text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  summary             text CHECK (char_length(summary) <= 2000),
  description         text CHECK (char_length(description) <= 20000),
  game_type           text NOT NULL DEFAULT 'game' CHECK (game_type IN ('app', 'game', 'launcher')),
  status              text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'hidden')),
  release_date        date,
  controller_support  text NOT NULL DEFAULT 'none' CHECK (controller_support IN ('none', 'partial', 'full')),
  website             text CHECK (char_length(website) <= 500),
  required_age        integer NOT NULL DEFAULT 0 CHECK (required_age BETWEEN 0 AND 21),
  legal_notice        text CHECK (char_length(legal_notice) <= 5000),
  license_required    boolean NOT NULL DEFAULT false,
  content_description text CHECK (char_length(content_description) <= 5000),
  metadata            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT store_games_slug_key UNIQUE (slug)
);

-- Staff list: every sort (title, created_at, updated_at, release_date) and both filters
-- (status, game_type), each with the id tie-breaker the queries order by.
CREATE INDEX store_games_title_idx ON store_games (title, id);
CREATE INDEX store_games_created_idx ON store_games (created_at, id);
CREATE INDEX store_games_updated_idx ON store_games (updated_at, id);
CREATE INDEX store_games_release_idx ON store_games (release_date, id);
CREATE INDEX store_games_status_idx ON store_games (status, created_at, id);
CREATE INDEX store_games_type_idx ON store_games (game_type, created_at, id);
-- Public list: published games only, newest release first (the default) or by title.
CREATE INDEX store_games_published_release_idx ON store_games (release_date DESC NULLS LAST, id DESC) WHERE status = 'published';
CREATE INDEX store_games_published_title_idx ON store_games (title, id) WHERE status = 'published';

-- Genres, developers and publishers share one shape. Names are unique regardless of case
-- ("Action" and "action" are the same genre). A slug is never all digits, so the public
-- `genre` filter can tell an id from a slug.
CREATE TABLE store_genres (
  id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  slug       text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,63}$' AND slug !~ '^[0-9]+$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_genres_name_key ON store_genres (lower(name));
CREATE UNIQUE INDEX store_genres_slug_key ON store_genres (slug);
CREATE INDEX store_genres_name_idx ON store_genres (name, id);

CREATE TABLE store_developers (
  id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  slug       text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,63}$' AND slug !~ '^[0-9]+$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_developers_name_key ON store_developers (lower(name));
CREATE UNIQUE INDEX store_developers_slug_key ON store_developers (slug);
CREATE INDEX store_developers_name_idx ON store_developers (name, id);

CREATE TABLE store_publishers (
  id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  slug       text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,63}$' AND slug !~ '^[0-9]+$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_publishers_name_key ON store_publishers (lower(name));
CREATE UNIQUE INDEX store_publishers_slug_key ON store_publishers (slug);
CREATE INDEX store_publishers_name_idx ON store_publishers (name, id);

-- Links. Deleting a game or a genre/developer/publisher removes its links with it; the
-- reverse indexes serve the public genre filter, the game counts and those cascades.
CREATE TABLE store_game_genres (
  game_id  integer NOT NULL REFERENCES store_games (id) ON DELETE CASCADE,
  genre_id integer NOT NULL REFERENCES store_genres (id) ON DELETE CASCADE,
  PRIMARY KEY (game_id, genre_id)
);
CREATE INDEX store_game_genres_genre_idx ON store_game_genres (genre_id, game_id);

CREATE TABLE store_game_developers (
  game_id      integer NOT NULL REFERENCES store_games (id) ON DELETE CASCADE,
  developer_id integer NOT NULL REFERENCES store_developers (id) ON DELETE CASCADE,
  PRIMARY KEY (game_id, developer_id)
);
CREATE INDEX store_game_developers_developer_idx ON store_game_developers (developer_id, game_id);

CREATE TABLE store_game_publishers (
  game_id      integer NOT NULL REFERENCES store_games (id) ON DELETE CASCADE,
  publisher_id integer NOT NULL REFERENCES store_publishers (id) ON DELETE CASCADE,
  PRIMARY KEY (game_id, publisher_id)
);
CREATE INDEX store_game_publishers_publisher_idx ON store_game_publishers (publisher_id, game_id);
