-- What the account-deletion area publishes of a player's deletion request for other areas to read
-- (issue 44, item 2): its status and when the account is erased, which tells a deletion the player
-- asked for from one staff made (a user's detail). A plain projection, inlined by the planner as
-- user_directory is (0048).
CREATE VIEW deletion_request_directory AS
SELECT user_id, status, hard_delete_at
  FROM account_deletion_requests;
