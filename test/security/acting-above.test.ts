import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp } from '../helpers/app.js';
import { auditOf, requestIdOf } from '../helpers/expectations.js';
import { accessState, storedState } from '../helpers/stored-state.js';
import { routeRecorder, servedRoutes, WRITE_METHODS, type ServedRoute } from './route-table.js';

/**
 * One rule for every staff write on users and roles, generated from the app's own routes: every
 * write method under /v1/admin/users and /v1/admin/roles (the bulk roles route included) is
 * found in Fastify's route tree, and each must have a scenario below (a route added without one
 * fails the first test). In each, a caller holding the route's permission but not a permission
 * of the target (a user holding `billing.write`, or a role holding it, or a role about to be
 * given it) is refused 403 `forbidden` naming the key, and nothing changes: no row, no audit
 * entry, no event. The same request by a caller who also holds the key then goes through, so the
 * refusal is the rule's and nothing else's.
 */

/** The permission the target holds and the refused caller does not. */
const PRIVILEGED = 'billing.write';
const USER_REFUSAL = {
  error: 'forbidden',
  details: { perm: PRIVILEGED, missing: [PRIVILEGED], reason: 'the user holds permissions you do not' },
};
const ROLE_REFUSAL = { error: 'forbidden', details: { perm: PRIVILEGED, missing: [PRIVILEGED] } };

const recorder = routeRecorder();
let t: TestApp;
let writes: ServedRoute[];

const isUsersOrRolesPath = (path: string) =>
  ['/v1/admin/users', '/v1/admin/roles'].some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/** What a scenario acts on: a user and a role, each holding PRIVILEGED, made fresh for it. */
interface Target {
  userId: string;
  roleId: string;
  roleKey: string;
  /** A role holding nothing: granting it passes the role's own rule, so only the user's can refuse. */
  plainRoleKey: string;
}

interface Scenario {
  name: string;
  refusal: unknown;
  /** Puts the target in the state the route accepts (banned for unban, self-deleted for restore). */
  prepare?: (target: Target) => Promise<void>;
  request: (target: Target) => InjectOptions;
}

type Method = InjectOptions['method'];

const userWrite = (method: Method, suffix: string, payload: object, prepare?: Scenario['prepare']): Scenario[] => [
  {
    name: 'a user holding a permission the caller lacks',
    refusal: USER_REFUSAL,
    prepare,
    request: (target) => ({ method, url: `/v1/admin/users/${target.userId}${suffix}`, payload }),
  },
];

const roleWrite = (method: Method, suffix: string, payload: object | undefined): Scenario[] => [
  {
    name: 'a role holding a permission the caller lacks',
    refusal: ROLE_REFUSAL,
    request: (target) => ({
      method,
      url: `/v1/admin/roles/${target.roleId}${suffix}`,
      ...(payload === undefined ? {} : { payload }),
    }),
  },
];

/** Unban needs a banned user. */
async function banned({ userId }: Target): Promise<void> {
  await t.db.updateTable('users').set({ status: 'banned' }).where('id', '=', userId).execute();
}

/** Restore needs an account its holder deleted, in the grace period. */
async function selfDeleted({ userId }: Target): Promise<void> {
  const now = new Date();
  await t.db.updateTable('users').set({ status: 'deleted', deleted_at: now }).where('id', '=', userId).execute();
  await t.db
    .insertInto('account_deletion_requests')
    .values({
      user_id: userId,
      status: 'confirmed',
      code_hash: null,
      code_expires_at: now,
      reason: null,
      confirmed_at: now,
      hard_delete_at: new Date(now.getTime() + 86_400_000),
    })
    .execute();
}

const bulk = (target: Target, roleKey: string, action: 'grant' | 'revoke'): InjectOptions => ({
  method: 'POST',
  url: '/v1/admin/users/bulk/roles',
  payload: { user_ids: [target.userId], role_key: roleKey, action },
});

/** Every write route under /v1/admin/users and /v1/admin/roles, and how to provoke the rule on it. */
const SCENARIOS: Record<string, Scenario[]> = {
  'PATCH /v1/admin/users/{id}': userWrite('PATCH', '', { display_name: 'Renamed' }),
  'POST /v1/admin/users/{id}/ban': userWrite('POST', '/ban', { reason: 'testing the rule' }),
  'POST /v1/admin/users/{id}/unban': userWrite('POST', '/unban', { reason: 'testing the rule' }, banned),
  'POST /v1/admin/users/{id}/sign-out': userWrite('POST', '/sign-out', { reason: 'testing the rule' }),
  'DELETE /v1/admin/users/{id}': userWrite('DELETE', '', { reason: 'testing the rule' }),
  'POST /v1/admin/users/{id}/restore': userWrite('POST', '/restore', { reason: 'testing the rule' }, selfDeleted),
  'POST /v1/admin/users/bulk/roles': [
    {
      name: 'granting a plain role to a user holding a permission the caller lacks',
      refusal: USER_REFUSAL,
      request: (target) => bulk(target, target.plainRoleKey, 'grant'),
    },
    {
      name: 'revoking a plain role from such a user',
      refusal: USER_REFUSAL,
      request: (target) => bulk(target, target.plainRoleKey, 'revoke'),
    },
    {
      name: 'granting a role holding a permission the caller lacks',
      refusal: ROLE_REFUSAL,
      request: (target) => bulk(target, target.roleKey, 'grant'),
    },
  ],
  'POST /v1/admin/roles': [
    {
      name: 'a role to be given a permission the caller lacks',
      refusal: ROLE_REFUSAL,
      request: () => ({
        method: 'POST',
        url: '/v1/admin/roles',
        payload: { key: `made-${randomUUID().slice(0, 8)}`, name: 'Made', permissions: [PRIVILEGED] },
      }),
    },
  ],
  'PATCH /v1/admin/roles/{id}': roleWrite('PATCH', '', { name: 'Renamed' }),
  'PUT /v1/admin/roles/{id}/permissions': [
    ...roleWrite('PUT', '/permissions', { keys: [] }).map((s) => ({ ...s, name: `${s.name}: removing it` })),
    ...roleWrite('PUT', '/permissions', { keys: [PRIVILEGED, 'users.read'] }).map((s) => ({
      ...s,
      name: `${s.name}: keeping it, adding another`,
    })),
  ],
  'DELETE /v1/admin/roles/{id}': roleWrite('DELETE', '?reason=testing', undefined),
  'PUT /v1/admin/roles/{id}/alerts': roleWrite('PUT', '/alerts', { alerts: [] }),
};

/** Everything a write on a user or a role could change. */
const accessWriteState = async () => ({
  ...(await accessState(t.db)),
  ...(await storedState(
    t.db,
    {
      role_alert_subscriptions: ['role_id', 'alert'],
      revoked_sessions: ['user_id', 'session_id'],
      account_deletion_requests: ['user_id'],
    },
    ['audit_log', 'event_outbox'],
  )),
});

async function freshTarget(): Promise<Target> {
  const user = await createUser(t.db, [PRIVILEGED, 'users.read']);
  const suffix = randomUUID().slice(0, 8);
  const role = await t.db
    .insertInto('roles')
    .values({ key: `privileged-${suffix}`, name: 'Privileged' })
    .returning(['id', 'key'])
    .executeTakeFirstOrThrow();
  await t.db.insertInto('role_permissions').values({ role_id: role.id, permission_key: PRIVILEGED }).execute();
  const plain = await t.db
    .insertInto('roles')
    .values({ key: `plain-${suffix}`, name: 'Plain' })
    .returning('key')
    .executeTakeFirstOrThrow();
  return { userId: user.id, roleId: role.id, roleKey: role.key, plainRoleKey: plain.key };
}

const permsOf = (route: ServedRoute): readonly string[] => {
  const perms = recorder.configs.get(route.route)?.perms;
  if (perms === undefined || perms.length === 0) throw new Error(`${route.route}: no request reached it, or no perms`);
  return perms;
};

beforeAll(async () => {
  t = await startTestApp({ extraRoutes: recorder.extraRoutes });
  writes = servedRoutes(t).filter((route) => WRITE_METHODS.includes(route.method) && isUsersOrRolesPath(route.path));
  // A request without a token reaches each route: the recorder reads its permission keys from it.
  for (const route of writes) {
    await t.request({ method: route.method as Method, url: route.path.replace(/\{\w+\}/g, randomUUID()) });
  }
});
afterAll(async () => {
  await t?.close();
});

describe('no staff write on a user or a role more privileged than the caller', () => {
  it('every write route under /v1/admin/users and /v1/admin/roles has a scenario, and every scenario a route', () => {
    expect(writes.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(SCENARIOS).sort()).toEqual(writes.map((route) => route.route).sort());
  });

  it('each is refused 403 naming the key, changing nothing; a caller also holding the key goes through', async () => {
    const wrong: string[] = [];
    let refused = 0;
    for (const route of writes) {
      for (const scenario of SCENARIOS[route.route] ?? []) {
        const label = `${route.route} (${scenario.name})`;
        const target = await freshTarget();
        await scenario.prepare?.(target);
        const perms = [...permsOf(route), 'users.read'];
        const caller = await createUser(t.db, perms);
        const before = await accessWriteState();
        const response = await t.request({ ...scenario.request(target), token: caller.token });
        const body = response.body === '' ? '' : response.json();
        const answer = JSON.stringify({ status: response.statusCode, body });
        if (answer !== JSON.stringify({ status: 403, body: scenario.refusal })) wrong.push(`${label}: ${answer}`);
        if ((await auditOf(t.db, requestIdOf(response))).length > 0) wrong.push(`${label}: audited`);
        if (JSON.stringify(await accessWriteState()) !== JSON.stringify(before))
          wrong.push(`${label}: changed something`);
        refused += 1;

        const entitled = await createUser(t.db, [...perms, PRIVILEGED]);
        const allowed = await t.request({ ...scenario.request(target), token: entitled.token });
        const failedUser = allowed.statusCode === 200 && allowed.json().results?.some((r: { ok: boolean }) => !r.ok);
        if (allowed.statusCode >= 300 || failedUser) {
          wrong.push(`${label}: refused with ${PRIVILEGED} too: ${allowed.statusCode} ${allowed.body}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(refused).toBeGreaterThanOrEqual(writes.length);
  });
});
