import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables, UserRow, UserStatus } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import { forbidden, invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import type { EventPublisher } from '../../kernel/events.js';
import { identityCall } from './identity-calls.js';
import { findUser, grantedPermissionKeys, isLastActiveOwner, lockUser, redactAuditOf } from './queries.js';
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
    private readonly events: EventPublisher,
    private readonly log: FastifyBaseLogger,
  ) {}

  async ban(actor: Actor, id: string, reason: string): Promise<void> {
    await this.precheck(actor, id, 'ban', (user) => {
      if (user.status !== 'active') throw invalidState({ reason: `a ${user.status} user cannot be banned`, status: user.status });
    }, true);
    await identityCall(this.log, actor.requestId, 'ban user', () => this.identity.banUser(id));
    await this.changeStatus(actor, id, { from: ['active'], to: 'banned', action: 'users.ban', event: 'users.banned', reason });
  }

  async unban(actor: Actor, id: string, reason: string | undefined): Promise<void> {
    await this.precheck(actor, id, 'unban', (user) => {
      if (user.status !== 'banned') throw invalidState({ reason: `only a banned user can be unbanned; this one is ${user.status}`, status: user.status });
    });
    await identityCall(this.log, actor.requestId, 'unban user', () => this.identity.unbanUser(id));
    await this.changeStatus(actor, id, { from: ['banned'], to: 'active', action: 'users.unban', event: 'users.unbanned', reason: reason ?? null });
  }

  /**
   * Ends every sign-in session (tokens issued up to now are refused from the next request), or
   * one session (tokens carrying its `session_id` claim are refused).
   */
  async signOut(actor: Actor, id: string, input: SignOutUserInput): Promise<void> {
    await this.precheck(actor, id, 'sign out', () => {});
    await identityCall(this.log, actor.requestId, 'sign out user', () => this.identity.signOut(id, input.session_id));
    await this.db.transaction().execute(async (trx) => {
      if ((await lockUser(trx, id)) === undefined) throw notFound();
      if (input.session_id === undefined) {
        await trx.updateTable('users').set({ tokens_valid_after: new Date() }).where('id', '=', id).execute();
      } else {
        await trx.insertInto('revoked_sessions')
          .values({ user_id: id, session_id: input.session_id, revoked_by: actor.userId })
          .onConflict((oc) => oc.columns(['user_id', 'session_id']).doNothing())
          .execute();
      }
      await recordAudit(trx, actor, {
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
    await this.precheck(actor, id, 'delete', (user) => {
      if (!input.hard && user.status === 'deleted') throw invalidRequest({ reason: 'the user is already deleted' });
    }, true);
    if (!input.hard) {
      await this.changeStatus(actor, id, { from: ['active', 'banned'], to: 'deleted', action: 'users.soft_delete', event: 'users.soft_deleted', reason: input.reason });
      return;
    }
    await identityCall(this.log, actor.requestId, 'delete user', () => this.identity.deleteUser(id));
    await this.db.transaction().execute(async (trx) => {
      const user = await lockUser(trx, id);
      if (user === undefined) throw notFound();
      await this.refuseLastOwner(trx, user);
      await redactAuditOf(trx, id);
      // Every table holding a user's rows references users(id) ON DELETE CASCADE (a test checks it).
      await trx.deleteFrom('users').where('id', '=', id).execute();
      await recordAudit(trx, actor, { action: 'users.hard_delete', targetType: 'user', targetId: id, reason: input.reason, extra: { previous_status: user.status } });
      await this.events.publish(trx, { kind: 'dashboard', name: 'users.hard_deleted', payload: { user_id: id }, actorId: actor.userId, requestId: actor.requestId });
    });
  }

  /**
   * The checks that need no lock, made before the identity provider is asked anything: the user
   * exists, is not the caller, holds nothing the caller lacks, is in a state the action accepts,
   * and (for an action that removes access) is not the last active owner. The transaction checks
   * state and ownership again under its locks.
   */
  private async precheck(actor: Actor, id: string, verb: string, acceptState: (user: UserRow) => void, removesAccess = false): Promise<UserRow> {
    const user = await findUser(this.db, id);
    if (user === undefined) throw notFound();
    if (id === actor.userId) throw invalidRequest({ reason: `you cannot ${verb} your own account` });
    // Staff cannot act on someone more privileged than themselves (no locking out an owner).
    const lacking = (await grantedPermissionKeys(this.db, id)).filter((key) => !actor.permissions.covers(key));
    if (lacking.length > 0) throw forbidden({ perm: lacking[0], missing: lacking, reason: `the user holds permissions you do not` });
    acceptState(user);
    if (removesAccess && (await isLastActiveOwner(this.db, id))) throw invalidRequest({ reason: 'the user is the last active owner' });
    return user;
  }

  private async refuseLastOwner(trx: Kysely<Tables>, user: UserRow): Promise<void> {
    if (await isLastActiveOwner(trx, user.id)) throw invalidRequest({ reason: 'the user is the last active owner' });
  }

  private async changeStatus(actor: Actor, id: string, change: { from: UserStatus[]; to: UserStatus; action: string; event: string; reason: string | null }): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const user = await lockUser(trx, id);
      if (user === undefined) throw notFound();
      if (!change.from.includes(user.status)) throw invalidState({ reason: `the user is now ${user.status}`, status: user.status });
      if (change.to !== 'active') await this.refuseLastOwner(trx, user);
      const now = new Date();
      await trx.updateTable('users')
        .set({
          status: change.to,
          status_reason: change.reason,
          status_changed_at: now,
          status_changed_by: actor.userId,
          deleted_at: change.to === 'deleted' ? now : null,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      await recordAudit(trx, actor, { action: change.action, targetType: 'user', targetId: id, reason: change.reason, before: { status: user.status }, after: { status: change.to } });
      await this.events.publish(trx, { kind: 'dashboard', name: change.event, payload: { user_id: id }, actorId: actor.userId, requestId: actor.requestId });
    });
  }
}
