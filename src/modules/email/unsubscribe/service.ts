import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { MAX_EMAIL_LENGTH } from '../audiences/index.js';
import type { Writes } from '../../../kernel/write.js';
import { verifyUnsubscribeToken, type UnsubscribeClaims } from '../unsubscribe-token.js';
import { deleteSuppression, findSuppression, insertSuppression, listSuppressions } from './queries.js';
import type { AddSuppressionInput, ListSuppressionsQuery, SuppressionView } from './schemas.js';
import { suppressionPicture } from './audit-picture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TARGET = 'email_suppression';

/** How the person unsubscribed: their mail provider's one-click button, or the link's page. */
export type UnsubscribeSource = 'one_click' | 'link';

/**
 * The suppression list: addresses that get no marketing mail. People add themselves through the
 * signed link of any marketing mail; staff add and remove addresses by hand. The dispatcher
 * checks the list when it sends, so a change counts for every message not yet handed over.
 */
export class SuppressionsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly tokenKey: () => string,
  ) {}

  /** The token's claims when this service signed it for a storable address; undefined otherwise. */
  readToken(token: string | undefined): UnsubscribeClaims | undefined {
    if (token === undefined || token === '') return undefined;
    const claims = verifyUnsubscribeToken(this.tokenKey(), token);
    if (claims === undefined || claims.email.length < 3 || claims.email.length > MAX_EMAIL_LENGTH) return undefined;
    return claims;
  }

  /**
   * Suppresses the token's address. Idempotent: an address already on the list stays as it is
   * and the answer is the same, so nothing tells whether it was known.
   */
  async unsubscribe(claims: UnsubscribeClaims, source: UnsubscribeSource): Promise<void> {
    const messageId = claims.messageId !== null && UUID.test(claims.messageId) ? claims.messageId : null;
    await insertSuppression(this.db, { email: claims.email, reason: 'unsubscribed', source, messageId });
  }

  async list(query: ListSuppressionsQuery) {
    const { rows, total } = await listSuppressions(this.db, query);
    return paged(rows, query, total);
  }

  /** Adds an address by hand: `created` false (and nothing audited) when it was already suppressed. */
  async add(actor: Actor, input: AddSuppressionInput): Promise<{ suppression: SuppressionView; created: boolean }> {
    return this.write(actor, async (w) => {
      const added = await insertSuppression(w.trx, {
        email: input.email,
        reason: input.reason,
        source: 'staff',
        messageId: null,
      });
      if (added === undefined) return { suppression: (await findSuppression(w.trx, input.email))!, created: false };
      await w.auditRow(suppressionPicture, {
        action: 'email.suppression.add',
        targetType: TARGET,
        targetId: added.email,
        reason: input.note ?? null,
        after: added,
        only: ['email', 'reason'],
      });
      return { suppression: added, created: true };
    });
  }

  /** Lets marketing mail go to the address again. */
  async remove(actor: Actor, email: string, reason: string | undefined): Promise<void> {
    await this.write(actor, async (w) => {
      const removed = await deleteSuppression(w.trx, email);
      if (removed === undefined) throw notFound();
      await w.auditRow(suppressionPicture, {
        action: 'email.suppression.remove',
        targetType: TARGET,
        targetId: removed.email,
        reason: reason ?? null,
        before: removed,
      });
    });
  }
}
