import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { findUser, identityCall, lockUser, refuseActingAbove, writeStatusChange } from '../users/index.js';
import {
  deleteDeletionRequest,
  deletionRequestStatus,
  lockDeletionRequest,
  refuseTokensIssuedBefore,
} from './queries.js';

const notSelfDeleted = (status: string) =>
  invalidState({ reason: 'the account is not in the grace period of a deletion its owner confirmed', status });

/**
 * The grace period's way back: the player, refused since their deletion, writes to support,
 * and staff restore the account before the purge. Sign-in is enabled again at the identity
 * provider first (a failure is 502, nothing changes); then the account is active again, the
 * purge is called off, and tokens issued before now stay refused (the player signs in anew).
 * Subscriptions stay set to end with their period: resuming one is the player's or billing
 * staff's choice.
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
    const pending = await deletionRequestStatus(this.db, id);
    // Checked before the provider is asked anything: a staff soft delete is not undone here.
    if (user.status !== 'deleted' || pending !== 'confirmed') throw notSelfDeleted(user.status);
    await identityCall(this.log, actor.requestId, 'enable sign-in', () => this.identity.unbanUser(id));
    await this.write(actor, async (w) => {
      const { trx } = w;
      const locked = await lockUser(trx, id);
      if (locked === undefined) throw notFound();
      const request = await lockDeletionRequest(trx, id);
      if (locked.status !== 'deleted' || request?.status !== 'confirmed') throw notSelfDeleted(locked.status);
      const now = new Date();
      await writeStatusChange(
        w,
        locked,
        {
          to: 'active',
          action: 'users.self_delete_cancel',
          event: 'users.restored',
          reason,
          extra: { hard_delete_at: request.hard_delete_at?.toISOString() ?? null },
        },
        now,
      );
      await refuseTokensIssuedBefore(trx, id, now);
      await deleteDeletionRequest(trx, id);
    });
  }
}
