import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { forbidden } from '../../kernel/errors.js';
import { rolePermissionKeys } from './queries.js';

/** How route descriptions state the rule. */
export const UNHELD_ROLE_KEYS_REFUSAL =
  '403 `forbidden` when the role holds, or would be given, a permission you do not' +
  ' (`details.perm` names one, `details.missing` all)';

/**
 * The one rule of every staff write on a role (create, rename, permissions, alerts, deletion, and
 * granting or revoking it): the caller holds every key the role holds and every key it is given.
 * So no one adds a key they lack (no self-escalation), removes one (no stripping a role more
 * privileged than themselves), or renames, re-subscribes, deletes or hands out such a role.
 * 403 `forbidden`: `details.perm` names one missing key (" | " would read as "any of these" in the
 * spec's convention), `details.missing` lists them all.
 */
export function refuseUnheldRoleKeys(actor: Actor, keys: Iterable<string>): void {
  const missing = [...new Set(keys)].filter((key) => !actor.permissions.covers(key)).sort();
  if (missing.length > 0) throw forbidden({ perm: missing[0], missing });
}

/** The rule for a write on an existing role that gives it no new keys: the keys it holds now. */
export async function refuseActingOnRole(db: Kysely<Tables>, actor: Actor, roleId: string): Promise<void> {
  refuseUnheldRoleKeys(actor, await rolePermissionKeys(db, roleId));
}
