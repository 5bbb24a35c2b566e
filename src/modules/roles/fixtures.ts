import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { grantUnexpiringRole, insertRole, replaceRolePermissions } from './queries.js';

/**
 * A role made for one test subject, holding `permissions`, granted to it without an end: the
 * statements the roles service runs to create a role and grant it, without the actor, the
 * checks and the audit row (test/helpers/app.ts `createUser`). Answers the role's id.
 */
export async function writeRoleGrantFixture(
  db: Kysely<Tables>,
  grant: { userId: string; key: string; name: string; permissions: string[] },
): Promise<string> {
  const role = await insertRole(db, { key: grant.key, name: grant.name, description: null });
  await replaceRolePermissions(db, role.id, grant.permissions);
  await grantUnexpiringRole(db, role.id, [grant.userId], 'test');
  return role.id;
}
