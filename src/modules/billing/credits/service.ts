import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidState } from '../../../kernel/errors.js';
import { paged, type PageRequest } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { ledgerEntryPicture } from './audit-picture.js';
import { addCredits } from './ledger.js';
import { listLedger, listLots, listUserLedger } from './queries.js';
import type { GrantCreditsInput, GrantResult, ListLedgerQuery, ListLotsQuery } from './schemas.js';

/** Staff grants and the ledger and lot lists; the ledger itself is ledger.ts. */
export class CreditsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  /**
   * Grants credits with the ledger entry, its lot, the audit row and the dashboard event in one
   * transaction. With an idempotency key, a repeat answers the first grant and writes nothing.
   */
  async grant(
    actor: Actor,
    input: GrantCreditsInput,
    idempotencyKey: string | undefined,
  ): Promise<GrantResult & { replayed: boolean }> {
    // Retried on a deadlock or serialization failure: the ledger locks the user, then touches
    // lots (expiring lapsed ones), and anything locking them the other way round makes this the
    // server's victim. Everything here goes through `trx`, so running it again is safe.
    return this.write(actor, async ({ trx, auditRow, publish }) => {
      const result = await addCredits(trx, {
        userId: input.user_id,
        amount: input.amount,
        kind: 'grant',
        expiresAt: input.expires_at === undefined ? null : new Date(input.expires_at),
        actorId: actor.userId,
        reason: input.reason,
        // Namespaced: ledger keys are unique across every caller (fulfilment uses provider event ids).
        idempotencyKey: idempotencyKey === undefined ? undefined : `grant:${idempotencyKey}`,
        checkAccount: (account) => {
          if (account.status === 'deleted')
            throw invalidState({ reason: 'a deleted user cannot be granted credits', status: account.status });
        },
      });
      const answer = { entry_id: result.entryId, balance: result.balance, replayed: result.replayed };
      if (result.replayed) return answer;
      await auditRow(ledgerEntryPicture, {
        action: 'billing.credits.grant',
        targetType: 'user',
        targetId: input.user_id,
        reason: input.reason,
        after: {
          id: result.entryId,
          amount: input.amount,
          balance_after: result.balance,
          lot_id: result.lotId,
          expires_at: input.expires_at ?? null,
        },
        ...(idempotencyKey === undefined ? {} : { extra: { idempotency_key: idempotencyKey } }),
      });
      await publish({
        kind: 'dashboard',
        name: 'billing.credits_granted',
        payload: { user_id: input.user_id, amount: input.amount, entry_id: result.entryId },
      });
      return answer;
    });
  }

  async listLedger(query: ListLedgerQuery) {
    const { rows, total } = await listLedger(this.db, query);
    return paged(rows, query, total);
  }

  async listLots(query: ListLotsQuery) {
    const { rows, total } = await listLots(this.db, query);
    return paged(rows, query, total);
  }

  /** The caller's own ledger, paged without a total (spec "Pagination"). */
  async myLedger(userId: string, page: PageRequest) {
    const data = await listUserLedger(this.db, userId, page);
    return { data, meta: { page: page.page, per_page: page.per_page } };
  }
}
