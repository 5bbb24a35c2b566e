import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import type { Writes } from '../../kernel/write.js';
import { userPicture } from './audit-picture.js';
import { identityCall } from './identity-calls.js';
import { refuseActingAbove } from './policy.js';
import {
  findUser,
  findUserDetail,
  lockUser,
  listUsers,
  tierExists,
  updateProfile,
  type ProfileChanges,
} from './queries.js';
import type { ListUsersQuery, UpdateUserInput, UserDetail } from './schemas.js';

/** The profile fields an edit may send: the part of the user's audit picture a profile edit keeps. */
const PROFILE_FIELDS = ['display_name', 'tier', 'metadata'] as const;

/** Finding and reading people, and editing their profile fields. Lifecycle changes live in lifecycle.ts. */
export class UsersService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly identity: IdentityProvider,
    private readonly log: FastifyBaseLogger,
  ) {}

  async list(query: ListUsersQuery) {
    const { rows, total } = await listUsers(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string): Promise<UserDetail> {
    const user = await findUserDetail(this.db, id);
    if (user === undefined) throw notFound();
    return user;
  }

  /** The identity provider's record of the account (sign-in methods, ban, last sign-in). */
  async identityAccount(id: string, requestId: string | null) {
    if ((await findUser(this.db, id)) === undefined) throw notFound();
    const account = await identityCall(this.log, requestId, 'fetch user', () => this.identity.fetchUser(id));
    if (account === null)
      throw notFound('not_found', { reason: `the ${this.identity.kind} identity provider has no record of this user` });
    return account;
  }

  async update(actor: Actor, id: string, input: UpdateUserInput): Promise<UserDetail> {
    await this.write(actor, async ({ trx, audit }) => {
      const user = await lockUser(trx, id);
      if (user === undefined) throw notFound();
      await refuseActingAbove(trx, actor, [id]);
      if (user.status === 'deleted')
        throw invalidState({ reason: 'a deleted user cannot be edited', status: user.status });
      if (input.tier !== undefined && input.tier !== null && (await tierExists(trx, input.tier)) === undefined) {
        throw invalidRequest({ reason: 'unknown tier', tier: input.tier });
      }
      // `metadata` sent is written and audited whole even when equal, as it always has been.
      const { before, after, changed } = userPicture.changes(user, input, {
        only: PROFILE_FIELDS,
        alwaysChanged: ['metadata'],
      });
      if (changed.length === 0) return; // nothing differs: no write, no audit entry
      const changes: ProfileChanges = {};
      if (input.display_name !== undefined && changed.includes('display_name'))
        changes.display_name = input.display_name;
      if (input.tier !== undefined && changed.includes('tier')) changes.tier = input.tier;
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
      await updateProfile(trx, id, changes);
      await audit({
        action: 'users.update',
        targetType: 'user',
        targetId: id,
        reason: input.reason,
        before,
        after,
      });
    });
    return this.get(id);
  }
}
