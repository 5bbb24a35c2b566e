import type { SeedSizes } from '../options.js';
import { ADMIN_USER, BULK_ROLE_KEY, OPS_USER, STAFF_SHARE, benchUuidSql, existingBulkRoleHolders } from './fixtures.js';
import type { SeedStep } from './seed-step.js';

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001'; // made by migration 0001

/** A spread of past instants derived from `n` (deterministic, no two neighbours alike). */
export function pastInstant(n: string, days: number): string {
  return (
    `now() - ((${n})::bigint * 7919 % ${days}) * interval '1 day' - ((${n})::bigint * 104729 % 86400) * interval '1 ` +
    `second'`
  );
}

/**
 * Plans first (users reference tiers), then users with tiers, providers and statuses, staff
 * roles and their grants, and a history of audit rows for the audit scenario to filter.
 */
export function peopleSteps(sizes: SeedSizes): SeedStep[] {
  const active = sizes.activeUsers;
  const everyone = active + sizes.inactiveUsers;
  const lastStaff = 2 + Math.max(10, Math.round(active * STAFF_SHARE));
  const holders = existingBulkRoleHolders(sizes);
  return [
    {
      label: 'plan rulesets and tiers',
      sql: `
        INSERT INTO plan_rulesets (key, name, limits) VALUES
          ('free-rules', 'Free', '{"max_fps": 30, "session_minutes": 60}'),
          ('plus-rules', 'Plus', '{"max_fps": 60, "session_minutes": 240}'),
          ('pro-rules', 'Pro', '{"max_fps": 120, "session_minutes": 600}');
        INSERT INTO plan_tiers (key, name, rank, ruleset_id)
        SELECT t.key, t.name, t.rank, r.id
          FROM (VALUES ('free', 'Free', 0, 'free-rules'), ('plus', 'Plus', 10, 'plus-rules'), ('pro', 'Pro', 20, 'pro-rules')) AS t(key, name, rank, ruleset)
          JOIN plan_rulesets r ON r.key = t.ruleset;`,
    },
    {
      label: `${everyone} users`,
      sql: `
        INSERT INTO users (id, email, display_name, provider, status, created_at, updated_at, last_seen_at, tier,
                           metadata, status_reason, status_changed_at, deleted_at)
        SELECT ${benchUuidSql('user', 'i')}, 'player' || i || '@bench.example', 'Player ' || i,
               (ARRAY['email', 'google', 'discord', 'github'])[1 + i % 4],
               CASE WHEN i <= ${active} THEN 'active' WHEN i % 2 = 0 THEN 'banned' ELSE 'deleted' END,
               ${pastInstant('i', 730)}, ${pastInstant('i', 730)},
               CASE WHEN i % 10 = 0 THEN NULL ELSE ${pastInstant('i + 1', 90)} END,
               CASE WHEN i % 10 < 6 THEN NULL WHEN i % 10 < 9 THEN 'plus' ELSE 'pro' END,
               jsonb_build_object('signup_source', (ARRAY['web', 'launcher', 'mobile'])[1 + i % 3]),
               CASE WHEN i > ${active} THEN 'bench: inactive account' END,
               CASE WHEN i > ${active} THEN now() END,
               CASE WHEN i > ${active} AND i % 2 = 1 THEN now() END
          FROM generate_series(1, ${everyone}) AS i;`,
    },
    {
      label: 'staff roles and grants',
      sql: `
        INSERT INTO roles (key, name, description) VALUES
          ('ops-oncall', 'Ops on call', 'Sets the maintenance level.'),
          ('support-agent', 'Support agent', 'Answers players.'),
          ('moderator', 'Moderator', 'Bans and edits accounts.'),
          ('content-editor', 'Content editor', 'Edits the site and the store.'),
          ('${BULK_ROLE_KEY}', 'Beta tester', 'Early access badge.');
        INSERT INTO role_permissions (role_id, permission_key)
        SELECT r.id, p.key
          FROM (VALUES ('ops-oncall', 'ops.read'), ('ops-oncall', 'ops.panic'),
                       ('support-agent', 'users.read'), ('support-agent', 'support.read'), ('support-agent', 'support.write'), ('support-agent', 'audit.read'),
                       ('moderator', 'users.read'), ('moderator', 'users.write'),
                       ('content-editor', 'content.*'), ('content-editor', 'site.*'), ('content-editor', 'store.*')) AS p(role, key)
          JOIN roles r ON r.key = p.role;
        INSERT INTO user_roles (user_id, role_id, reason) VALUES
          (${benchUuidSql('user', String(ADMIN_USER))}, '${OWNER_ROLE_ID}', 'bench owner'),
          (${benchUuidSql('user', String(OPS_USER))}, (SELECT id FROM roles WHERE key = 'ops-oncall'), 'bench on call');
        INSERT INTO user_roles (user_id, role_id, granted_by, reason, expires_at)
        SELECT ${benchUuidSql('user', 'i')}, r.id, ${benchUuidSql('user', String(ADMIN_USER))}, 'bench staff',
               CASE WHEN i % 7 = 0 THEN now() + interval '90 days' END
          FROM generate_series(3, ${lastStaff}) AS i
          JOIN roles r ON r.key = 'support-agent' OR (r.key = 'moderator' AND i % 3 = 0) OR (r.key = 'content-editor' AND i % 5 = 0);
        INSERT INTO user_roles (user_id, role_id, granted_by, reason)
        SELECT ${benchUuidSql('user', 'i')}, (SELECT id FROM roles WHERE key = '${BULK_ROLE_KEY}'), ${benchUuidSql('user', String(ADMIN_USER))}, 'early access'
          FROM generate_series(${holders.first}, ${holders.last}) AS i;`,
    },
    {
      label: `${sizes.auditRows} audit rows`,
      sql: `
        INSERT INTO audit_log (created_at, actor_id, action, target_type, target_id, request_id, ip, user_agent, reason, summary)
        SELECT ${pastInstant('i', 90)}, ${benchUuidSql('user', `3 + i % ${lastStaff - 2}`)}, a.action, a.target_type,
               CASE a.target_type WHEN 'user' THEN ${benchUuidSql('user', `1 + i * 13 % ${active}`)}::text ELSE (1 + i % 1000)::text END,
               'bench-req-' || i, '10.0.' || (i % 250) || '.' || (1 + i % 7), 'Mozilla/5.0 (bench)',
               CASE WHEN i % 5 = 0 THEN 'ticket #' || i END,
               jsonb_build_object('before', jsonb_build_object('n', i - 1), 'after', jsonb_build_object('n', i))
          FROM generate_series(1, ${sizes.auditRows}) AS i
          JOIN (VALUES (0, 'users.update', 'user'), (1, 'users.ban', 'user'), (2, 'users.unban', 'user'), (3, 'users.role_grant', 'user'),
                       (4, 'users.sign_out', 'user'), (5, 'site.content_block.status', 'content_block'), (6, 'store.game.update', 'store_game'),
                       (7, 'catalog.achievement.update', 'catalog_achievement'), (8, 'billing.credits.grant', 'user'),
                       (9, 'email.campaign.create', 'email_campaign')) AS a(slot, action, target_type)
            ON a.slot = i % 10;`,
    },
  ];
}
