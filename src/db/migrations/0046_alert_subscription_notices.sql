-- The channels a staff member's open realtime sockets may stay in follow the alerts their roles
-- hear (`alerts:<role key>`), and open sockets are re-checked on the user change notices
-- (src/modules/realtime/hub.ts). A role's alert subscriptions are a part of the role like its
-- permissions: a change to them reaches every holder, on every instance.
CREATE TRIGGER role_alert_subscriptions_notify AFTER INSERT OR UPDATE OR DELETE ON role_alert_subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
CREATE TRIGGER role_alert_subscriptions_notify_truncate AFTER TRUNCATE ON role_alert_subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_user_change_of_everyone();
