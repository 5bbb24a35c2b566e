import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables, UserRow, UserStatus } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { redactAuditOf } from '../../kernel/audit.js';
import { invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import type { AuditedTransaction, Writes } from '../../kernel/write.js';
import { userPicture } from './audit-picture.js';
import { identityCall, providerMayHoldSession } from './identity-calls.js';
import { LastActiveOwnerRefusal, refusingLastOwnerLoss } from './owner-guard.js';
import { refuseActingAbove } from './policy.js';
import {
  deleteUserRow,
  endAllSessions,
  findUser,
  isLastActiveOwner,
  lockUser,
  rememberErased,
  setStatus,
} from './queries.js';
import { revokeSession } from '../login-sessions/index.js';
import type { DeleteUserInput, SignOutUserInput } from './schemas.js';

/**
 * Ban, unban, sign-out and deletion. Each asks the identity provider first (outside any
 * transaction: a slow provider must not hold a row lock or the embedded database's only
 * connection), then changes the user row, the audit log and the outbox in one transaction that
 * re-checks the state under a row lock. A provider refusal is 502 and nothing here changes;
 * every provider call is idempotent, so retrying after a failed commit converges.
 */
export class UserLifecycleService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly identity: IdentityProvider,
    private readonly write: Writes,
    private readonly log: FastifyBaseLogger,
  ) {}

  async ban(actor: Actor, id: string, reason: string): Promise<void> {
    await this.precheck(
      actor,
      id,
      'ban',
      (user) => {
        if (user.status !== 'active')
          throw invalidState({ reason: `a ${user.status} user cannot be banned`, status: user.status });
      },
      true,
    );
    await identityCall(this.log, actor.requestId, 'ban user', () => this.identity.banUser(id));
    try {
      const change = {
        from: ['active' as const],
        to: 'banned' as const,
        action: 'users.ban',
        event: 'users.banned',
        reason,
      };
      await this.changeStatus(actor, id, change);
    } catch (error) {
      // Another owner left since the early check: the user stays active, so their sign-in must too.
      if (error instanceof LastActiveOwnerRefusal) await this.undoProviderBan(actor, id);
      throw error;
    }
  }

  async unban(actor: Actor, id: string, reason: string | undefined): Promise<void> {
    await this.precheck(actor, id, 'unban', (user) => {
      if (user.status !== 'banned')
        throw invalidState({
          reason: `only a banned user can be unbanned; this one is ${user.status}`,
          status: user.status,
        });
    });
    await identityCall(this.log, actor.requestId, 'unban user', () => this.identity.unbanUser(id));
    await this.changeStatus(actor, id, {
      from: ['banned'],
      to: 'active',
      action: 'users.unban',
      event: 'users.unbanned',
      reason: reason ?? null,
    });
  }

  /**
   * Ends every sign-in session (tokens issued up to now are refused from the next request), or
   * one session (tokens carrying its `session_id` claim are refused).
   */
  async signOut(actor: Actor, id: string, input: SignOutUserInput): Promise<void> {
    await this.precheck(actor, id, 'sign out', () => {});
    // A session the identity provider cannot hold (a token family) is ended here alone.
    if (input.session_id === undefined || providerMayHoldSession(input.session_id)) {
      await identityCall(this.log, actor.requestId, 'sign out user', () => this.identity.signOut(id, input.session_id));
    }
    await this.write(actor, async (w) => {
      const { trx } = w;
      if ((await lockUser(trx, id)) === undefined) throw notFound();
      if (input.session_id === undefined) await endAllSessions(trx, id);
      else await revokeSession(trx, id, input.session_id, actor.userId);
      await w.audit({
        action: 'users.sign_out',
        targetType: 'user',
        targetId: id,
        reason: input.reason ?? null,
        extra: { scope: input.session_id === undefined ? 'all' : 'session', session_id: input.session_id ?? null },
      });
    });
  }

  /** Operation 2. Soft: the account is marked deleted and refused. Hard: it and everything it owns are removed. */
  async delete(actor: Actor, id: string, input: DeleteUserInput): Promise<void> {
    await this.precheck(
      actor,
      id,
      'delete',
      (user) => {
        if (!input.hard && user.status === 'deleted') throw invalidRequest({ reason: 'the user is already deleted' });
      },
      true,
    );
    if (!input.hard) {
      await this.changeStatus(actor, id, {
        from: ['active', 'banned'],
        to: 'deleted',
        action: 'users.soft_delete',
        event: 'users.soft_deleted',
        reason: input.reason,
      });
      return;
    }
    await identityCall(this.log, actor.requestId, 'delete user', () => this.identity.deleteUser(id));
    await refusingLastOwnerLoss(() =>
      this.write(actor, async (w) => {
        const user = await lockUser(w.trx, id);
        if (user === undefined) throw notFound();
        await removeUser(w, user, input.reason);
      }),
    );
  }

  /**
   * The checks that need no lock, made before the identity provider is asked anything: the user
   * exists, is not the caller, holds nothing the caller lacks, is in a state the action accepts,
   * and (for an action that removes access) is not the last active owner. The transaction checks
   * the state again under its lock; the database refuses its commit if it would leave no owner.
   */
  private async precheck(
    actor: Actor,
    id: string,
    verb: string,
    acceptState: (user: UserRow) => void,
    removesAccess = false,
  ): Promise<UserRow> {
    const user = await findUser(this.db, id);
    if (user === undefined) throw notFound();
    if (id === actor.userId) throw invalidRequest({ reason: `you cannot ${verb} your own account` });
    await refuseActingAbove(this.db, actor, [id]);
    acceptState(user);
    if (removesAccess && (await isLastActiveOwner(this.db, id))) throw new LastActiveOwnerRefusal();
    return user;
  }

  private async undoProviderBan(actor: Actor, id: string): Promise<void> {
    await this.identity
      .unbanUser(id)
      .catch((undo: unknown) =>
        this.log.error({ request_id: actor.requestId, err: undo }, 'could not lift the sign-in ban of a refused ban'),
      );
  }

  private async changeStatus(
    actor: Actor,
    id: string,
    change: { from: UserStatus[]; to: UserStatus; action: string; event: string; reason: string | null },
  ): Promise<void> {
    await refusingLastOwnerLoss(() =>
      this.write(actor, async (w) => {
        const user = await lockUser(w.trx, id);
        if (user === undefined) throw notFound();
        if (!change.from.includes(user.status))
          throw invalidState({ reason: `the user is now ${user.status}`, status: user.status });
        await writeStatusChange(w, user, change);
      }),
    );
  }
}

/**
 * Moves a user, locked by the caller, to another status with its audit row and dashboard event,
 * in the caller's write. Shared by the staff actions above and the player's own deletion
 * (account-deletion), so a self-deleted account looks exactly like a staff soft delete.
 */
export async function writeStatusChange(
  w: AuditedTransaction,
  user: UserRow,
  change: { to: UserStatus; action: string; event: string; reason: string | null; extra?: Record<string, unknown> },
  now = new Date(),
): Promise<void> {
  await setStatus(w.trx, user.id, { to: change.to, reason: change.reason, by: w.actor.userId, at: now });
  await w.auditRow(userPicture, {
    action: change.action,
    targetType: 'user',
    targetId: user.id,
    reason: change.reason,
    before: user,
    after: { status: change.to },
    only: ['status'],
    ...(change.extra ? { extra: change.extra } : {}),
  });
  await w.publish({ kind: 'dashboard', name: change.event, payload: { user_id: user.id } });
}

/**
 * Removes a user, locked by the caller, and everything they own, in the caller's write:
 * operation 2's hard delete, also run by the purge of self-deleted accounts (actor: the service).
 * The identity provider must have removed the account first.
 */
export async function removeUser(w: AuditedTransaction, user: UserRow, reason: string | null): Promise<void> {
  const { trx } = w;
  await redactAuditOf(trx, user.id);
  // Every table holding a user's rows references users(id) ON DELETE CASCADE (a test checks it).
  await deleteUserRow(trx, user.id);
  await rememberErased(trx, user.id);
  await w.audit({
    action: 'users.hard_delete',
    targetType: 'user',
    targetId: user.id,
    reason,
    extra: { previous_status: user.status },
  });
  await w.publish({ kind: 'dashboard', name: 'users.hard_deleted', payload: { user_id: user.id } });
}
