import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { PaymentProvider } from '../../adapters/payments/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { type AppError, invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import { applyProviderSubscription, atProvider, renewingSubscriptionsOf } from '../billing/checkout/index.js';
import { queueEmails } from '../email/delivery/index.js';
import {
  identityCall,
  writeStatusChange,
  LastActiveOwnerRefusal,
  refusingLastOwnerLoss,
  isLastActiveOwner,
  lockUser,
} from '../users/index.js';
import type { AuditedWrite, Writes } from '../../kernel/write.js';
import { hashConfirmationCode, newConfirmationCode, sameHash } from './code.js';
import { confirmationMail } from './mail.js';
import { CODE_TTL_MINUTES, daysAfter, GRACE_PERIOD_DAYS, MAX_WRONG_CODES, minutesAfter } from './policy.js';
import { countWrongCode, lockDeletionRequest, markConfirmed, replaceDeletionRequest } from './queries.js';
import type { ConfirmDeletionInput, DeletionConfirmed, StartDeletionInput } from './schemas.js';

type Db = Kysely<Tables>;

const DEFAULT_REASON = 'deleted by the account holder';
const noRequest = () => invalidState({ reason: 'no deletion request is pending; start one with POST /v1/me/delete' });

/** What checking a code decided: the hash to confirm with, or the refusal to answer after the counter is committed. */
type CodeVerdict = { ok: true; codeHash: string; reason: string | null } | { ok: false; refusal: AppError };

/**
 * The player deletes their own account: a code mailed to the account's address, then the
 * confirmation with it. Nothing about the account changes before a right code arrives. The
 * confirmation then works as staff soft delete does, plus what a leaving player needs: the
 * identity provider disables sign-in first (outside any transaction; a failure is 502 and
 * nothing changes), then one transaction cancels renewing subscriptions at the provider
 * (at period end), marks the account deleted (audit `users.self_delete`, event
 * `users.soft_deleted`) and sets the hard delete for after the grace period.
 */
export class AccountDeletionService {
  constructor(
    private readonly db: Db,
    private readonly identity: IdentityProvider,
    private readonly payments: PaymentProvider,
    private readonly write: Writes,
    private readonly log: FastifyBaseLogger,
    private readonly codeKey: () => string,
  ) {}

  async start(actor: Actor, input: StartDeletionInput): Promise<{ expires_at: Date }> {
    return this.write(async ({ trx }) => {
      const user = await lockUser(trx, actor.userId);
      if (user === undefined) throw notFound();
      // Such a user adds an address at the identity provider first, or asks support (operation 2).
      if (user.email === null)
        throw invalidState({ reason: 'the account has no email address to send the confirmation code to' });
      // No code is mailed for a deletion the database would refuse.
      if (await isLastActiveOwner(trx, user.id)) throw new LastActiveOwnerRefusal();
      const code = newConfirmationCode();
      const expiresAt = minutesAfter(new Date(), CODE_TTL_MINUTES);
      await replaceDeletionRequest(trx, {
        user_id: user.id,
        code_hash: hashConfirmationCode(this.codeKey(), user.id, code),
        code_expires_at: expiresAt,
        reason: input.reason ?? null,
      });
      await queueEmails(trx, [
        { to_email: user.email, category: 'transactional', user_id: user.id, ...confirmationMail(code, expiresAt) },
      ]);
      return { expires_at: expiresAt };
    });
  }

  async confirm(actor: Actor, input: ConfirmDeletionInput): Promise<DeletionConfirmed> {
    const verdict = await this.checkCode(actor.userId, input.code);
    if (!verdict.ok) throw verdict.refusal;
    // Early, before sign-in is disabled; the database's guard decides at commit.
    if (await isLastActiveOwner(this.db, actor.userId)) throw new LastActiveOwnerRefusal();
    await identityCall(this.log, actor.requestId, 'disable sign-in', () => this.identity.banUser(actor.userId));
    try {
      // Retried on a deadlock: this locks the user, then their subscriptions; a provider event about
      // one of them locks it, then the user (its tier). The provider calls made again on a retry
      // (cancel at period end) are idempotent.
      return await refusingLastOwnerLoss(() =>
        this.write(actor, (w) => this.softDelete(w, actor, verdict.codeHash, verdict.reason)),
      );
    } catch (error) {
      // The account stays as it was, so sign-in must too; the code still works for a retry.
      await this.identity
        .unbanUser(actor.userId)
        .catch((undo: unknown) =>
          this.log.error(
            { request_id: actor.requestId, err: undo },
            'could not lift the sign-in ban after a failed account deletion',
          ),
        );
      throw error;
    }
  }

  /**
   * Checks the code in a transaction of its own, so a wrong guess is counted (and a fifth one
   * voids the request) even though the answer is an error.
   */
  private checkCode(userId: string, code: string): Promise<CodeVerdict> {
    return this.write(async ({ trx }): Promise<CodeVerdict> => {
      const request = await lockDeletionRequest(trx, userId);
      if (request === undefined || request.status === 'confirmed') return { ok: false, refusal: noRequest() };
      if (request.status === 'voided')
        return {
          ok: false,
          refusal: invalidState({
            reason: `the request was voided after ${MAX_WRONG_CODES} wrong codes; start a new one`,
          }),
        };
      if (request.code_expires_at <= new Date())
        return {
          ok: false,
          refusal: invalidState({
            reason: 'the code has expired; start a new request',
            expired_at: request.code_expires_at.toISOString(),
          }),
        };
      const codeHash = hashConfirmationCode(this.codeKey(), userId, code);
      if (sameHash(codeHash, request.code_hash!)) return { ok: true, codeHash, reason: request.reason };
      const attempts = request.failed_attempts + 1;
      const voided = attempts >= MAX_WRONG_CODES;
      await countWrongCode(trx, userId, attempts, voided);
      return {
        ok: false,
        refusal: voided
          ? invalidState({ reason: `${MAX_WRONG_CODES} wrong codes: the request is void; start a new one` })
          : invalidRequest({ reason: 'wrong code', attempts_left: MAX_WRONG_CODES - attempts }),
      };
    });
  }

  private async softDelete(
    w: AuditedWrite,
    actor: Actor,
    codeHash: string,
    reason: string | null,
  ): Promise<DeletionConfirmed> {
    const { trx } = w;
    const user = await lockUser(trx, actor.userId);
    if (user === undefined) throw notFound();
    if (user.status !== 'active') throw invalidState({ reason: `the account is ${user.status}`, status: user.status });
    // A second confirmation, or a new request, may have landed since the code was checked.
    const request = await lockDeletionRequest(trx, actor.userId);
    if (request?.status !== 'pending' || request.code_hash === null || !sameHash(request.code_hash, codeHash))
      throw noRequest();
    const subscriptions = await this.cancelRenewals(trx, actor.userId);
    const now = new Date();
    const hardDeleteAt = daysAfter(now, GRACE_PERIOD_DAYS);
    await writeStatusChange(
      w,
      user,
      {
        to: 'deleted',
        action: 'users.self_delete',
        event: 'users.soft_deleted',
        reason: reason ?? DEFAULT_REASON,
        extra: { hard_delete_at: hardDeleteAt.toISOString(), ...subscriptions },
      },
      now,
    );
    await markConfirmed(trx, actor.userId, now, hardDeleteAt);
    return { deleted_at: now, hard_delete_at: hardDeleteAt };
  }

  /**
   * Renewing subscriptions are set to cancel at the end of the period already paid for, at
   * the provider, and its answer applied as staff cancel applies it. One made under another
   * provider (the service switched from local to Stripe) cannot be reached: it is named in
   * the audit entry for staff to end by hand.
   */
  private async cancelRenewals(
    trx: Db,
    userId: string,
  ): Promise<{ subscriptions_cancelled: string[]; subscriptions_unreachable: string[] }> {
    const cancelled: string[] = [];
    const unreachable: string[] = [];
    for (const row of await renewingSubscriptionsOf(trx, userId)) {
      if (row.provider !== this.payments.kind) {
        unreachable.push(row.id);
        continue;
      }
      const answer = await atProvider(
        () => this.payments.cancelSubscription(row.provider_subscription_id, 'period_end'),
        { withMessage: false },
      );
      await applyProviderSubscription(trx, this.payments.kind, userId, answer, {
        deleted: answer.status === 'canceled',
        occurredAt: new Date().toISOString(),
      });
      cancelled.push(row.id);
    }
    return { subscriptions_cancelled: cancelled, subscriptions_unreachable: unreachable };
  }
}
