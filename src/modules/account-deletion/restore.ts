import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables, UserStatus } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import {
  type Deletion,
  deletionOf,
  findUser,
  identityCall,
  lockUser,
  refuseActingAbove,
  refuseTokensIssuedBefore,
  selfDeletionOf,
  statusBeforeSoftDelete,
  writeStatusChange,
} from '../users/index.js';
import { deleteDeletionRequest, lockDeletionRequest } from './queries.js';

/** The deletion that can be undone now, or the 422 that says why not. */
function restorable(status: UserStatus, deletion: Deletion | null, now: Date): Deletion {
  if (deletion === null) throw invalidState({ reason: 'the account is not deleted', status });
  const until = deletion.restorable_until;
  if (until === null || until <= now)
    throw invalidState({
      reason: 'the grace period in which the deletion could be undone has ended',
      status,
      deleted_by: deletion.by,
      restorable_until: until?.toISOString() ?? null,
    });
  return deletion;
}

/**
 * The grace period's way back, for both kinds of soft delete. A player's own deletion: the
 * player, refused since, writes to support, and staff restore the account before the purge;
 * sign-in is enabled again at the identity provider first (a failure is 502, nothing changes),
 * then the account is active again and the purge is called off. A staff soft delete (local: the
 * provider was not asked) is undone within the same grace period, back to the status it had
 * (active, or banned: the provider still bans it). Either way tokens issued before now stay
 * refused (the player signs in anew). Subscriptions a self-deletion set to end stay so:
 * resuming one is the player's or billing staff's choice.
 */
export class AccountRestoreService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly identity: IdentityProvider,
    private readonly write: Writes,
    private readonly log: FastifyBaseLogger,
  ) {}

  async restore(actor: Actor, id: string, reason: string): Promise<void> {
    const user = await findUser(this.db, id);
    if (user === undefined) throw notFound();
    await refuseActingAbove(this.db, actor, [id]);
    // Checked before the provider is asked anything.
    const kind = restorable(user.status, deletionOf(user, await selfDeletionOf(this.db, id)), new Date()).by;
    if (kind === 'self')
      await identityCall(this.log, actor.requestId, 'enable sign-in', () => this.identity.unbanUser(id));
    await this.write(actor, async (w) => {
      const { trx } = w;
      const locked = await lockUser(trx, id);
      if (locked === undefined) throw notFound();
      const request = await lockDeletionRequest(trx, id);
      const now = new Date();
      const deletion = restorable(locked.status, deletionOf(locked, request), now);
      // Restored or deleted again meanwhile: the provider was asked for the other kind.
      if (deletion.by !== kind) throw invalidState({ reason: 'the deletion changed meanwhile', status: locked.status });
      const extra = { deleted_by: deletion.by, restorable_until: deletion.restorable_until?.toISOString() ?? null };
      if (deletion.by === 'self') {
        const change = { to: 'active' as const, action: 'users.self_delete_cancel', event: 'users.restored', reason };
        await writeStatusChange(w, locked, { ...change, extra: { hard_delete_at: extra.restorable_until } }, now);
        await deleteDeletionRequest(trx, id);
      } else {
        const to = (await statusBeforeSoftDelete(trx, id)) === 'banned' ? 'banned' : 'active';
        await writeStatusChange(
          w,
          locked,
          { to, action: 'users.restore', event: 'users.restored', reason, extra },
          now,
        );
      }
      await refuseTokensIssuedBefore(trx, id, now);
    });
  }
}
