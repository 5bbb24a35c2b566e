import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { forbidden } from '../../kernel/errors.js';
import { grantedPermissionKeys } from './queries.js';

/** How route descriptions state the rule. */
export const ACTING_ABOVE_REFUSAL =
  '403 `forbidden` when the user holds a permission you do not (`details.perm` names one, `details.missing` all)';

/**
 * The one rule of every staff write on a user (profile, ban, unban, sign-out, deletion, restore,
 * role grants and revokes): the caller holds every permission the user holds, so no one edits,
 * locks out or strips someone more privileged than themselves. 403 `forbidden` with `details.perm`
 * naming one key the caller lacks and `details.missing` all of them. Pass every user the write
 * touches (a bulk action: all of them).
 */
export async function refuseActingAbove(db: Kysely<Tables>, actor: Actor, userIds: string[]): Promise<void> {
  const lacking = (await grantedPermissionKeys(db, userIds)).filter((key) => !actor.permissions.covers(key));
  if (lacking.length > 0) {
    throw forbidden({ perm: lacking[0], missing: lacking, reason: 'the user holds permissions you do not' });
  }
}
