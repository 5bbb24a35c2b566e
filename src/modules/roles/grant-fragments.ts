import { sql, type RawBuilder } from 'kysely';

/**
 * A user's grants in force, as parts of another area's one statement (the principal's lookup,
 * src/modules/users/principal-queries.ts): correlated subqueries over this area's tables, given
 * the user's id column. Plain SQL on the tables, not the published views: a statement parsed and
 * planned on every run (the embedded database, a transaction pooler) pays for expanding each view.
 */

/** The permission keys of the user's unexpired grants (wildcards as granted); `{}` for none. */
export function grantedPermissionKeysOf(userId: RawBuilder<string>) {
  return sql<string[]>`COALESCE((
             SELECT array_agg(DISTINCT rp.permission_key)
               FROM user_roles ur
               JOIN role_permissions rp ON rp.role_id = ur.role_id
              WHERE ur.user_id = ${userId}
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '{}')`;
}

/** The user's unexpired grants by role key, as JSON: key, name, expires_at; `[]` for none. */
export function grantsInForceOf(userId: RawBuilder<string>) {
  return sql<Array<{ key: string; name: string; expires_at: string | null }>>`COALESCE((
             SELECT json_agg(json_build_object('key', r.key, 'name', r.name, 'expires_at', ur.expires_at) ORDER BY
               r.key)
               FROM user_roles ur
               JOIN roles r ON r.id = ur.role_id
              WHERE ur.user_id = ${userId}
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '[]')`;
}

/** When the user's permissions next change by themselves: the soonest unexpired grant's expiry. */
export function grantsChangeAtOf(userId: RawBuilder<string>) {
  return sql<Date | null>`(SELECT min(ur.expires_at) FROM user_roles ur WHERE ur.user_id = ${userId} AND ur.expires_at > now())`;
}
