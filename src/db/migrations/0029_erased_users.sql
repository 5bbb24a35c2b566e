-- Accounts erased by a hard delete (staff operation 2, or the purge after a self-deletion). Only
-- the id, which identifies nothing once the account is gone: an access token of an erased account
-- can outlive it by up to its lifetime, and must not bring back an empty account on its next
-- request (the principal creates the user row on a subject's first request).
CREATE TABLE erased_users (
  id         uuid PRIMARY KEY,
  erased_at  timestamptz NOT NULL DEFAULT now()
);
