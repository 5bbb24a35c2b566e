-- What email campaigns publish of themselves for the audiences area to read (issue 44, item 2): a
-- campaign's audience and status, so a member list is not replaced while a campaign to it is under
-- way. A plain projection, inlined by the planner as user_directory is (0048).
CREATE VIEW campaign_audiences AS
SELECT id, audience_id, status, created_at
  FROM email_campaigns;
