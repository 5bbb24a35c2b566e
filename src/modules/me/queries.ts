import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';

export function findProfile(db: Kysely<Tables>, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'display_name', 'provider', 'status', 'created_at', 'last_seen_at'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export function listActiveRoleGrants(db: Kysely<Tables>, userId: string) {
  return db
    .selectFrom('user_roles')
    .innerJoin('roles', 'roles.id', 'user_roles.role_id')
    .select(['roles.key', 'roles.name', 'user_roles.expires_at'])
    .where('user_roles.user_id', '=', userId)
    .where((eb) => eb.or([eb('user_roles.expires_at', 'is', null), eb('user_roles.expires_at', '>', new Date())]))
    .orderBy('roles.key')
    .execute();
}
