-- What a player sets about themself (PATCH /v1/me): their language and time zone for dates and
-- mail. (Whether they get marketing mail is the suppression list, the same one unsubscribe links use.)
ALTER TABLE users
  ADD COLUMN locale             text CHECK (char_length(locale) BETWEEN 2 AND 35),
  ADD COLUMN timezone           text CHECK (char_length(timezone) BETWEEN 1 AND 64),
  ADD COLUMN profile_updated_at timestamptz;
