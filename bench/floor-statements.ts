/**
 * The statements the service sends for the answers the same-work floors (`same-work-server.ts`)
 * give, verbatim. Captured from PostgreSQL's statement log (`statement-capture.ts`: `ALTER
 * DATABASE … SET log_statement = 'all'` on the bench database, a service instance started after
 * it, each request asked twice to warm up and a third time between two marker queries) on the
 * full data set, 2026-11-27, on the tree of 16adc06. Every run on PostgreSQL captures them again
 * and compares (the "floor SQL" row of the table): when the service's queries change, that row
 * says so and prints the new text to put here.
 *
 * Kysely sends every statement through the extended protocol without a name (parse, bind,
 * execute each time); the floor's `pool.query(text, values)` does the same.
 */

/** `GET /v1/admin/users?page=1&per_page=25`: one statement, the page and its total (a kept count). */
export const USERS_PAGE_SQL = `select "users"."id", "users"."email", "users"."display_name", "users"."provider", "users"."status", "users"."tier", "users"."created_at", "users"."updated_at", "users"."last_seen_at", "users"."deleted_at", coalesce((select array_agg(roles.key ORDER BY roles.key) as "keys" from "user_roles" inner join "roles" on "roles"."id" = "user_roles"."role_id" where "user_roles"."user_id" = "users"."id" and (user_roles.expires_at IS NULL OR user_roles.expires_at > now())), '{}'::text[]) as "roles", (SELECT coalesce(sum(users), 0)::int FROM user_count_slots) as "total" from "users" where 1 = 1 order by users.created_at desc, "users"."id" limit $1 offset $2`;

/** `GET /v1/admin/audit?action=users.*`: the total from the kept per-action counts… */
export const AUDIT_COUNT_SQL = `SELECT coalesce(sum(counted.value::bigint), 0)::int AS n
      FROM audit_count_slots, jsonb_each_text(audit_count_slots.actions) AS counted
     WHERE counted.key LIKE $1`;

/** …and the page, sent at the same time on another session (the service's Promise.all). */
export const AUDIT_PAGE_SQL = `select "audit_log"."id", "audit_log"."created_at", "audit_log"."actor_id", "users"."email" as "actor_email", "audit_log"."action", "audit_log"."target_type", "audit_log"."target_id", "audit_log"."request_id", "audit_log"."ip", "audit_log"."user_agent", "audit_log"."reason", "audit_log"."summary" from "audit_log" left join "users" on "users"."id" = "audit_log"."actor_id" where "audit_log"."id" in (select "audit_log"."id" from "audit_log" where "audit_log"."action" like $1 and split_part(audit_log.action, '.', 1) = $2 order by "audit_log"."created_at" desc, "audit_log"."id" desc limit $3 offset $4) order by "audit_log"."created_at" desc, "audit_log"."id" desc`;

/**
 * `PATCH /v1/admin/catalog/achievements/{id}`: the change and its audit row in one statement
 * (a single statement is one transaction; the service sends no BEGIN/COMMIT around it).
 */
export const ACHIEVEMENT_UPDATE_SQL = `WITH stored AS (
      SELECT "id", "reward_credits", "key" FROM "catalog_achievements" WHERE id = $1 FOR UPDATE
    ), edited AS (
      UPDATE "catalog_achievements" AS edited_row SET "reward_credits" = $2, "updated_by" = $3, "updated_at" = $4
      FROM stored
      WHERE edited_row.id = stored.id AND ("stored"."reward_credits" IS DISTINCT FROM $5)
      RETURNING CASE WHEN "stored"."reward_credits" IS DISTINCT FROM "edited_row"."reward_credits" THEN
                jsonb_build_object('reward_credits', "stored"."reward_credits") ELSE '{}'::jsonb END AS before, CASE WHEN "stored"."reward_credits" IS DISTINCT FROM "edited_row"."reward_credits" THEN
                jsonb_build_object('reward_credits', "edited_row"."reward_credits") ELSE '{}'::jsonb END AS after,
        jsonb_build_object('key', "stored"."key") AS extra
    ), audited AS (
      INSERT INTO audit_log (actor_id, action, target_type, target_id, request_id, ip, user_agent, reason, summary)
      SELECT $6::uuid, $7::text, $8::text, $9::text,
        $10::text, $11::text, $12::text, $13::text,
        extra || jsonb_build_object('before', before, 'after', after)
      FROM edited
    )
    SELECT EXISTS (SELECT 1 FROM stored) AS found, EXISTS (SELECT 1 FROM edited) AS changed`;

/** Per floor route, the statements the capture must find (compared as sorted lists: the audit list's two run at once). */
export const FLOOR_STATEMENTS = {
  users: [USERS_PAGE_SQL],
  audit: [AUDIT_COUNT_SQL, AUDIT_PAGE_SQL],
  achievement: [ACHIEVEMENT_UPDATE_SQL],
} as const;

export type FloorRoute = keyof typeof FLOOR_STATEMENTS;
