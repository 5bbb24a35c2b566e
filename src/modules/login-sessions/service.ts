import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { notFound } from '../../kernel/errors.js';
import { identityCall, providerMayHoldSession } from '../users/index.js';
import type { Writes } from '../../kernel/write.js';
import { findLiveSession, listAllSessions, listLiveSessions, revokeSession, userExists } from './queries.js';
import type { MyLoginSession, StaffLoginSession } from './schemas.js';

/** Lists stay one unpaged answer: the newest this many sessions (a person rarely has more). */
const MAX_LISTED = 100;

export class LoginSessionsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly identity: IdentityProvider,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The caller's live sessions, newest activity first, the one of this request marked. */
  async listMine(userId: string, currentSessionId: string): Promise<{ data: MyLoginSession[] }> {
    const rows = await listLiveSessions(this.db, userId, MAX_LISTED);
    return {
      data: rows.map(({ revoked_at: _ended, ...row }) => ({ ...row, current: row.session_id === currentSessionId })),
    };
  }

  /**
   * Ends one of the caller's live sessions, the current one included. As staff sign-out does
   * (users/lifecycle.ts): the identity provider first, outside any transaction; its refusal is
   * 502 and nothing here changes; then the revocation and its audit row together. A session
   * that is not the caller's, unknown or already ended is 404, the same answer for each.
   */
  async revokeMine(actor: Actor, sessionId: string): Promise<void> {
    if ((await findLiveSession(this.db, actor.userId, sessionId)) === undefined) throw notFound();
    if (providerMayHoldSession(sessionId)) {
      await identityCall(this.log, actor.requestId, 'sign out session', () =>
        this.identity.signOut(actor.userId, sessionId),
      );
    }
    await this.write(actor, async (w) => {
      await revokeSession(w.trx, actor.userId, sessionId, actor.userId);
      await w.audit({
        action: 'users.self_sign_out',
        targetType: 'user',
        targetId: actor.userId,
        extra: { scope: 'session', session_id: sessionId },
      });
    });
  }

  /** Every recorded session of a user for staff, ended ones included (with when they ended). */
  async listForStaff(userId: string): Promise<{ data: StaffLoginSession[] }> {
    if ((await userExists(this.db, userId)) === undefined) throw notFound();
    return { data: await listAllSessions(this.db, userId, MAX_LISTED) };
  }
}
