-- Avatars through the storage adapter. An upload intent is recorded when a signed upload URL is
-- issued: confirming an avatar accepts only a key issued to the caller, of the declared type and
-- size, before it expires. The object itself lives in the store (local files or S3), never here.
CREATE TABLE storage_uploads (
  key           text PRIMARY KEY CHECK (char_length(key) BETWEEN 1 AND 400),
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose       text NOT NULL CHECK (purpose IN ('avatar')),
  content_type  text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  max_size      integer NOT NULL CHECK (max_size > 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  confirmed_at  timestamptz
);
CREATE INDEX storage_uploads_user_idx ON storage_uploads (user_id, created_at DESC);

-- The object key of the player's current avatar; the download URL is signed when shown.
ALTER TABLE users ADD COLUMN avatar_key text CHECK (char_length(avatar_key) BETWEEN 1 AND 400);
-- Staff deleting an object clears the avatar that uses it.
CREATE INDEX users_avatar_key_idx ON users (avatar_key) WHERE avatar_key IS NOT NULL;
