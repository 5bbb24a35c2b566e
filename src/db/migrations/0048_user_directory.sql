-- What the users area publishes for other areas to read (issue 44, item 2): who a row names (an
-- email or display name in a staff list, a detail, a mail), their status, account age and plan
-- tier, the avatar their row points at (storage keeps that object) and their token cut-off. Other areas join this view, never the users table, so users may change its
-- table behind it. A plain projection: PostgreSQL inlines it into the query that names it, so a
-- join to it plans as the join to users did (indexes on id and lower(email) included, and a left
-- join nothing reads is removed as before).
CREATE VIEW user_directory AS
SELECT id, email, display_name, status, created_at, tier, avatar_key, tokens_valid_after
  FROM users;
