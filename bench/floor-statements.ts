/**
 * The statements the service sends for the answers the same-work floors (`same-work-server.ts`)
 * give, verbatim. Captured from PostgreSQL's statement log (`statement-capture.ts`: `ALTER
 * DATABASE … SET log_statement = 'all'` on the bench database, a service instance started after
 * it, each request asked twice to warm up and a third time between two marker queries) on the
 * full data set, 2026-11-29, on the tree of 71199ae (the lists' names added since). Every run on PostgreSQL captures them again
 * and compares (the "floor SQL" row of the table): when the service's queries change, that row
 * says so and prints the new text to put here.
 *
 * Kysely sends every statement through the extended protocol. The staff lists' statements are
 * named prepared statements, one per text (`/* prepared by shape: … *\/`, decision 0106): the log
 * shows `execute <name>:`, and the floor sends the same name, so its session too parses and plans
 * each once. The rest are unnamed (parse, bind, execute each time), as `pool.query(text, values)`.
 */

/** A statement as the service sends it: its text, and its name when it is a named prepared statement. */
export interface FloorStatement {
  sql: string;
  /** As the log shows it (`execute <name>:`); absent for an unnamed statement (`execute <unnamed>:`). */
  name?: string;
}

/** `GET /v1/admin/users?page=1&per_page=25`: one statement, the page and its total (a kept count). */
export const USERS_PAGE: FloorStatement = {
  name: 'users_list_68291ce60a74',
  sql: `/* prepared by shape: users_list */ select "users"."id", "users"."email", "users"."display_name", "users"."provider", "users"."status", "users"."tier", "users"."created_at", "users"."updated_at", "users"."last_seen_at", "users"."deleted_at", coalesce((select array_agg(role_directory.key ORDER BY role_directory.key) as "keys" from "role_grants" inner join "role_directory" on "role_directory"."id" = "role_grants"."role_id" where "role_grants"."user_id" = "users"."id" and (role_grants.expires_at IS NULL OR role_grants.expires_at > now())), '{}'::text[]) as "roles", (SELECT coalesce(sum(users), 0)::int FROM user_count_slots) as "total" from "users" where 1 = 1 order by users.created_at desc, "users"."id" limit $1 offset $2`,
};

/** `GET /v1/admin/audit?action=users.*`: the total from the kept per-action counts… */
export const AUDIT_COUNT: FloorStatement = {
  name: 'audit_list_kept_count_46ce0f02c965',
  sql: `/* prepared by shape: audit_list_kept_count */ 
    SELECT coalesce(sum(counted.value::bigint), 0)::int AS n
      FROM audit_count_slots, jsonb_each_text(audit_count_slots.actions) AS counted
     WHERE counted.key LIKE $1`,
};

/** …and the page, sent at the same time on another session (the service's Promise.all). */
export const AUDIT_PAGE: FloorStatement = {
  name: 'audit_list_d6f81c72ab3f',
  sql: `/* prepared by shape: audit_list */ select "audit_log"."id", "audit_log"."created_at", "audit_log"."actor_id", "users"."email" as "actor_email", "users"."display_name" as "actor_name", CASE audit_log.target_type
  WHEN 'user' THEN (SELECT coalesce(target_user.email, target_user.display_name) FROM user_directory AS target_user
                     WHERE target_user.id = CASE WHEN audit_log.target_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  THEN audit_log.target_id::uuid END)
  WHEN 'role' THEN (SELECT target_role.name FROM role_directory AS target_role WHERE target_role.id = CASE WHEN audit_log.target_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  THEN audit_log.target_id::uuid END)
  END as "target_label", "audit_log"."action", "audit_log"."target_type", "audit_log"."target_id", "audit_log"."request_id", "audit_log"."ip", "audit_log"."user_agent", "audit_log"."reason", "audit_log"."summary" from "audit_log" left join "user_directory" as "users" on "users"."id" = "audit_log"."actor_id" where "audit_log"."id" in (select "audit_log"."id" from "audit_log" where "audit_log"."action" like $1 and split_part(audit_log.action, '.', 1) = $2 order by "audit_log"."created_at" desc, "audit_log"."id" desc limit $3 offset $4) order by "audit_log"."created_at" desc, "audit_log"."id" desc`,
};

/**
 * `PATCH /v1/admin/catalog/achievements/{id}`: the change and its audit row in one statement
 * (a single statement is one transaction; the service sends no BEGIN/COMMIT around it).
 */
export const ACHIEVEMENT_UPDATE: FloorStatement = {
  sql: `WITH stored AS (
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
    SELECT EXISTS (SELECT 1 FROM stored) AS found, EXISTS (SELECT 1 FROM edited) AS changed`,
};

/** Per floor route, the statements the capture must find (compared as sorted lists: the audit list's two run at once). */
export const FLOOR_STATEMENTS = {
  users: [USERS_PAGE],
  audit: [AUDIT_COUNT, AUDIT_PAGE],
  achievement: [ACHIEVEMENT_UPDATE],
} as const;

export type FloorRoute = keyof typeof FLOOR_STATEMENTS;
