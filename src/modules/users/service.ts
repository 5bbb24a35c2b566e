import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import type { Writes } from '../../kernel/write.js';
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
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      const changes: ProfileChanges = {};
      if (input.display_name !== undefined && input.display_name !== user.display_name) {
        before.display_name = user.display_name;
        after.display_name = changes.display_name = input.display_name;
      }
      if (input.tier !== undefined && input.tier !== user.tier) {
        before.tier = user.tier;
        after.tier = changes.tier = input.tier;
      }
      if (input.metadata !== undefined) {
        before.metadata = user.metadata;
        after.metadata = input.metadata;
        changes.metadata = JSON.stringify(input.metadata);
      }
      if (Object.keys(changes).length === 0) return; // nothing differs: no write, no audit entry
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
