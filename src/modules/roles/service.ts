import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import type { AuditActor } from '../../kernel/audit.js';
import { conflict, invalidRequest, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import type { PermissionCatalog } from '../../kernel/permissions.js';
import { isUniqueViolation } from '../../lib/sql-errors.js';
import { lockUser, refusingLastOwnerLoss, refuseActingAbove } from '../users/index.js';
import type { Writes } from '../../kernel/write.js';
import { OWNER_ROLE_ID } from './bootstrap.js';
import { refuseActingOnRole, refuseUnheldRoleKeys } from './policy.js';
import {
  countActiveGrants,
  deleteGrants,
  deleteRole,
  existingUserIds,
  findGrant,
  findRole,
  findRoleByKey,
  grantUnexpiringRole,
  insertRole,
  listRoles,
  lockedActiveOwnerIds,
  lockRole,
  lockRoleForBulkGrants,
  rolePermissionKeys,
  replaceRolePermissions,
  roleMembers,
  roleSummaries,
  touchRole,
  updateRole,
  upsertGrants,
} from './queries.js';
import type { BulkRolesInput, CreateRoleInput, ListRolesQuery, UpdateRoleInput } from './schemas.js';
import { rolePicture } from './audit-picture.js';

/** What granting the owner role did: granted (or an expiring grant made unexpiring), nothing, or no such user. */
export type OwnerGrantOutcome =
  | { outcome: 'granted'; previousExpiresAt: Date | null }
  | { outcome: 'already_owner' }
  | { outcome: 'no_such_user' };

/** SQLSTATE foreign_key_violation: the per-user error of a bulk action on a user (or role) that does not exist. */
const FOREIGN_KEY_VIOLATION = '23503';

/** SQLSTATE check_violation: the per-user error of a bulk action that would leave no active owner (migration 0044). */
const CHECK_VIOLATION = '23514';

/** A revoke of the owner role, or an expiry put on owner grants: what can leave the platform without an owner. */
function takesOwnershipAway(roleId: string, input: BulkRolesInput): boolean {
  return roleId === OWNER_ROLE_ID && (input.action === 'revoke' || input.expires_at !== undefined);
}

/** The owner who must keep the role when every active owner is named: the last one named. */
function lastOwnerAmong(named: string[], owners: Set<string>): string | undefined {
  const staying = [...owners].some((id) => !named.includes(id));
  return staying ? undefined : named.findLast((id) => owners.has(id));
}

/** Checks a permission list before it is stored: every key grantable (422), none twice (409). */
function checkGrantableKeys(permissions: PermissionCatalog, keys: string[]): void {
  const unknown = keys.filter((key) => !permissions.isGrantable(key));
  if (unknown.length > 0) throw invalidRequest({ reason: 'unknown permission keys', invalid_keys: unknown });
  const seen = new Set<string>();
  const duplicate = keys.find((key) => {
    if (seen.has(key)) return true;
    seen.add(key);
    return false;
  });
  if (duplicate !== undefined) throw conflict({ reason: 'permission key listed twice', key: duplicate });
}

async function lockedRoleOrThrow(trx: Kysely<Tables>, id: string) {
  const role = await lockRole(trx, id);
  if (role === undefined) throw notFound();
  return role;
}

function refuseProtected(role: { is_protected: boolean; key: string }): void {
  if (role.is_protected) throw invalidRequest({ reason: `role ${role.key} is protected and cannot be changed` });
}

export class RolesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly permissions: PermissionCatalog,
  ) {}

  async list(query: ListRolesQuery) {
    const { rows, total } = await listRoles(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string) {
    const role = await findRole(this.db, id);
    if (role === undefined) throw notFound();
    return role;
  }

  /** Every role with its member and permission counts, by key (the operator's `roles list`). */
  summaries() {
    return roleSummaries(this.db);
  }

  /** A role by key with its permission keys and everyone granted it; undefined when no role has the key. */
  async describe(key: string) {
    const role = await findRoleByKey(this.db, key);
    if (role === undefined) return undefined;
    const [permissions, members] = await Promise.all([
      rolePermissionKeys(this.db, role.id),
      roleMembers(this.db, role.id),
    ]);
    return {
      key: role.key,
      name: role.name,
      description: role.description,
      protected: role.is_protected,
      permissions,
      members,
    };
  }

  /**
   * The owner role for one user, without an end, by someone who holds no token: the operator at
   * the command line, trusted as BOOTSTRAP_OWNER is (the audit row names no actor id; `operator`
   * says where from). The grant and its audit row commit together; a user already owning the
   * role without an end changes and records nothing.
   */
  async grantOwner(operator: AuditActor, userId: string, reason: string): Promise<OwnerGrantOutcome> {
    return this.write(operator, async (w) => {
      const user = await lockUser(w.trx, userId);
      if (user === undefined) return { outcome: 'no_such_user' } as const;
      const previous = await findGrant(w.trx, userId, OWNER_ROLE_ID);
      const granted = await grantUnexpiringRole(w.trx, OWNER_ROLE_ID, [userId], reason);
      if (granted.length === 0) return { outcome: 'already_owner' } as const;
      const previousExpiresAt = previous?.expires_at == null ? null : new Date(previous.expires_at);
      await w.audit({
        action: 'users.role_grant',
        targetType: 'user',
        targetId: userId,
        reason,
        extra: {
          role_key: 'owner',
          role_id: OWNER_ROLE_ID,
          expires_at: null,
          ...(previousExpiresAt === null ? {} : { previous_expires_at: previousExpiresAt.toISOString() }),
        },
      });
      return { outcome: 'granted', previousExpiresAt } as const;
    });
  }

  catalog() {
    const { keys, descriptions } = this.permissions;
    const resources = [...new Set(keys.map((key) => key.split('.')[0] as string))];
    return {
      data: keys.map((key) => ({
        key,
        resource: key.split('.')[0] as string,
        description: descriptions[key],
      })),
      wildcards: ['*', ...resources.map((resource) => `${resource}.*`)],
    };
  }

  async create(actor: Actor, input: CreateRoleInput): Promise<{ id: string }> {
    const keys = input.permissions ?? [];
    checkGrantableKeys(this.permissions, keys);
    refuseUnheldRoleKeys(actor, keys);
    try {
      return await this.write(actor, async (w) => {
        const role = await insertRole(w.trx, {
          key: input.key,
          name: input.name,
          description: input.description ?? null,
        });
        await replaceRolePermissions(w.trx, role.id, keys);
        await w.auditRow(rolePicture, {
          action: 'roles.create',
          targetType: 'role',
          targetId: role.id,
          after: { ...input, permissions: [...keys].sort() },
          only: ['key', 'name', 'permissions'],
        });
        return { id: role.id };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict({ reason: 'role key taken', key: input.key });
      throw error;
    }
  }

  async update(actor: Actor, id: string, input: UpdateRoleInput): Promise<void> {
    await this.write(actor, async (w) => {
      const current = await lockedRoleOrThrow(w.trx, id);
      refuseProtected(current);
      await refuseActingOnRole(w.trx, actor, id);
      const changes = {
        name: input.name ?? current.name,
        description: input.description === undefined ? current.description : input.description,
      };
      await updateRole(w.trx, id, changes);
      await w.auditRow(rolePicture, {
        action: 'roles.update',
        targetType: 'role',
        targetId: id,
        before: current,
        after: changes,
        only: ['name', 'description'],
      });
    });
  }

  /** Operation 4: replace the role's whole permission list. */
  async setPermissions(actor: Actor, id: string, keys: string[]): Promise<void> {
    await refusingLastOwnerLoss(() =>
      this.write(actor, async (w) => {
        const current = await lockedRoleOrThrow(w.trx, id);
        refuseProtected(current);
        const before = await rolePermissionKeys(w.trx, id);
        const added = keys.filter((key) => !before.includes(key));
        const removed = before.filter((key) => !keys.includes(key));
        checkGrantableKeys(this.permissions, keys);
        refuseUnheldRoleKeys(actor, [...before, ...keys]);
        await replaceRolePermissions(w.trx, id, keys);
        await touchRole(w.trx, id);
        const after = [...new Set(keys)].sort();
        await w.auditRow(rolePicture, {
          action: 'roles.permissions_update',
          targetType: 'role',
          targetId: id,
          before: { permissions: before },
          after: { permissions: after },
        });
        await w.publish({
          kind: 'dashboard',
          name: 'roles.permissions_updated',
          payload: { role_id: id, role_key: current.key, added: added.sort(), removed },
        });
      }),
    );
  }

  /** Operation 16: a role still held by someone is not deleted (409); revoke the grants first. */
  async delete(actor: Actor, id: string, reason: string | undefined): Promise<void> {
    await refusingLastOwnerLoss(() =>
      this.write(actor, async (w) => {
        const current = await lockedRoleOrThrow(w.trx, id);
        refuseProtected(current);
        const permissions = await rolePermissionKeys(w.trx, id);
        refuseUnheldRoleKeys(actor, permissions);
        const holders = await countActiveGrants(w.trx, id);
        if (holders > 0) throw conflict({ reason: 'role is still granted; revoke it first', active_grants: holders });
        await deleteRole(w.trx, id);
        await w.auditRow(rolePicture, {
          action: 'roles.delete',
          targetType: 'role',
          targetId: id,
          reason,
          before: { ...current, permissions },
          only: ['key', 'name', 'permissions'],
        });
        await w.publish({
          kind: 'dashboard',
          name: 'roles.deleted',
          payload: { role_id: id, role_key: current.key },
        });
      }),
    );
  }

  /**
   * Operation 14: grant or revoke one role for up to 500 users in set-based statements. Always
   * answers per user; a user (or role) that does not exist fails with its SQLSTATE. Passing on
   * a role, or taking it away, needs every permission the role holds, and every permission each
   * named user holds. A revoke (or an expiry) naming every active owner leaves the last one named
   * their grant: that user alone fails, with SQLSTATE 23514 (check_violation), as the spec's
   * per-user answer has it.
   */
  async bulkAssign(actor: Actor, input: BulkRolesInput) {
    const userIds = [...new Set(input.user_ids.map((id) => id.toLowerCase()))];
    if (
      input.action === 'grant' &&
      input.expires_at !== undefined &&
      new Date(input.expires_at).getTime() <= Date.now()
    ) {
      throw invalidRequest({ reason: 'expires_at must be in the future' });
    }
    return refusingLastOwnerLoss(() =>
      this.write(actor, async (w) => {
        const role = await findRoleByKey(w.trx, input.role_key);
        if (role === undefined) {
          return { results: input.user_ids.map((user_id) => ({ user_id, ok: false, error: FOREIGN_KEY_VIOLATION })) };
        }
        // Bulk requests for one role run one at a time. Each writes its users' grant rows in its own
        // order (a grant in list order, a revoke in index order): two at once over overlapping users
        // deadlocked, and PostgreSQL's victim answered 500. NO KEY UPDATE leaves single grants (whose
        // foreign key check only share-locks the role) free to run beside them.
        await lockRoleForBulkGrants(w.trx, role.id);
        refuseUnheldRoleKeys(actor, await rolePermissionKeys(w.trx, role.id));

        const existing = await existingUserIds(w.trx, userIds);
        const named = userIds.filter((id) => existing.has(id));
        await refuseActingAbove(w.trx, actor, named);
        // The spec answers per user: the one owner whose loss would leave none keeps the role and
        // fails alone with the guard's SQLSTATE, while the others' changes go through.
        const keptOwner = takesOwnershipAway(role.id, input)
          ? lastOwnerAmong(named, await lockedActiveOwnerIds(w.trx))
          : undefined;
        const targets = named.filter((id) => id !== keptOwner);
        // A revoke is audited only where a grant was really taken away; asking to revoke what a
        // user never held still answers ok (the end state holds) but changes and records nothing.
        let changed = targets;
        if (input.action === 'grant') {
          await upsertGrants(w.trx, {
            roleId: role.id,
            userIds: targets,
            grantedBy: actor.userId,
            reason: input.reason ?? null,
            expiresAt: input.expires_at ?? null,
          });
        } else {
          changed = await deleteGrants(w.trx, role.id, targets);
        }
        const action = input.action === 'grant' ? 'users.role_grant' : 'users.role_revoke';
        const expiresAt = input.action === 'grant' ? (input.expires_at ?? null) : null;
        await w.auditMany(
          changed.map((userId) => ({
            action,
            targetType: 'user',
            targetId: userId,
            reason: input.reason,
            extra: { role_key: role.key, role_id: role.id, expires_at: expiresAt },
          })),
        );
        const results = input.user_ids.map((user_id) => {
          const id = user_id.toLowerCase();
          if (!existing.has(id)) return { user_id, ok: false, error: FOREIGN_KEY_VIOLATION };
          return id === keptOwner ? { user_id, ok: false, error: CHECK_VIOLATION } : { user_id, ok: true };
        });
        await w.publish({
          kind: 'dashboard',
          name: input.action === 'grant' ? 'users.bulk_role_grant' : 'users.bulk_role_revoke',
          payload: {
            role_key: role.key,
            role_id: role.id,
            succeeded: targets.length,
            failed: results.length - results.filter((r) => r.ok).length,
          },
        });
        return { results };
      }),
    );
  }
}
