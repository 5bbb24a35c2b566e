import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionSet, permText } from '../../../src/kernel/permissions.js';
import { PERMISSIONS } from '../../../src/modules/index.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { signToken } from '../../helpers/tokens.js';

/**
 * Permission resolution (spec "Authentication" 5-7): OR semantics of routes declaring several
 * keys and the `details.perm` text, wildcards, expired grants, and the PermissionSet rules.
 */

const DAY_MS = 86_400_000;
const PANIC_OFF = { level: 'off', reason: null, set_by: null, set_at: null, auto: false };

type Db = TestApp['db'];

/** A signed-in user holding these roles, each with its own keys and grant expiry. */
async function userWithGrants(db: Db, grants: Array<{ keys: string[]; expiresAt: Date | null }>): Promise<TestUser> {
  const user = await createUser(db);
  for (const grant of grants) {
    const role = await db
      .insertInto('roles')
      .values({ key: `perm-${randomUUID().slice(0, 12)}`, name: 'Permission test role' })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (grant.keys.length > 0)
      await db
        .insertInto('role_permissions')
        .values(grant.keys.map((permission_key) => ({ role_id: role.id, permission_key })))
        .execute();
    await db
      .insertInto('user_roles')
      .values({ user_id: user.id, role_id: role.id, granted_by: null, reason: 'test', expires_at: grant.expiresAt })
      .execute();
  }
  return user;
}

describe('permission resolution on routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const orDenied = { error: 'forbidden', details: { perm: 'ops.read | ops.panic' } };

  // GET /v1/admin/ops/panic declares ['ops.read', 'ops.panic']: holding either one admits.
  it.each([
    { name: 'no permissions at all', held: [] as string[], status: 403, body: orDenied },
    { name: 'unrelated keys only', held: ['users.read', 'roles.write', 'audit.read'], status: 403, body: orDenied },
    { name: 'a wildcard of another resource', held: ['roles.*', 'users.*'], status: 403, body: orDenied },
    { name: 'a look-alike key that is not in the catalog', held: ['ops.readonly', 'ops'], status: 403, body: orDenied },
    { name: 'ops.read alone', held: ['ops.read'], status: 200, body: PANIC_OFF },
    { name: 'ops.panic alone', held: ['ops.panic'], status: 200, body: PANIC_OFF },
    { name: 'both keys', held: ['ops.read', 'ops.panic'], status: 200, body: PANIC_OFF },
    { name: 'the resource wildcard ops.*', held: ['ops.*'], status: 200, body: PANIC_OFF },
    { name: 'the wildcard *', held: ['*'], status: 200, body: PANIC_OFF },
  ])('GET /v1/admin/ops/panic with $name → $status', async ({ held, status, body }) => {
    const caller = await createUser(t.db, held);
    const response = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: caller.token });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
  });

  // A route declaring one key names only that key.
  it.each([
    {
      name: 'POST /v1/admin/ops/panic without ops.panic (ops.read is not enough)',
      held: ['ops.read'],
      method: 'POST' as const,
      url: '/v1/admin/ops/panic',
      perm: 'ops.panic',
    },
    {
      name: 'GET /v1/admin/audit with roles.* only',
      held: ['roles.*'],
      method: 'GET' as const,
      url: '/v1/admin/audit',
      perm: 'audit.read',
    },
    {
      name: 'GET /v1/admin/roles with roles.write only (write does not imply read)',
      held: ['roles.write'],
      method: 'GET' as const,
      url: '/v1/admin/roles',
      perm: 'roles.read',
    },
  ])('403 perm text for $name', async ({ held, method, url, perm }) => {
    const caller = await createUser(t.db, held);
    const before = await t.db.selectFrom('ops_panic_state').selectAll().executeTakeFirstOrThrow();
    const response = await t.request({
      method,
      url,
      token: caller.token,
      payload: method === 'POST' ? { level: 'lockdown', reason: 'should not happen' } : undefined,
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm } },
    });
    expect(await t.db.selectFrom('ops_panic_state').selectAll().executeTakeFirstOrThrow()).toEqual(before);
  });

  it.each([
    {
      name: 'an expired grant grants nothing',
      grants: [{ keys: ['ops.read'], expiresAt: new Date(Date.now() - 1000) }],
      status: 403,
      effective: [] as string[],
    },
    {
      name: 'an expired * grants nothing',
      grants: [{ keys: ['*'], expiresAt: new Date(Date.now() - DAY_MS) }],
      status: 403,
      effective: [],
    },
    {
      name: 'an unexpired grant counts',
      grants: [{ keys: ['ops.read'], expiresAt: new Date(Date.now() + DAY_MS) }],
      status: 200,
      effective: ['ops.read'],
    },
    {
      name: 'only the unexpired of two grants counts',
      grants: [
        { keys: ['ops.*', 'audit.read'], expiresAt: new Date(Date.now() - DAY_MS) },
        { keys: ['users.read'], expiresAt: null },
      ],
      status: 403,
      effective: ['users.read'],
    },
    {
      name: 'keys of several roles add up',
      grants: [
        { keys: ['users.read'], expiresAt: null },
        { keys: ['ops.*'], expiresAt: new Date(Date.now() + DAY_MS) },
      ],
      status: 200,
      effective: ['ops.panic', 'ops.read', 'users.read'],
    },
  ])('$name (route and GET /v1/me/permissions agree)', async ({ grants, status, effective }) => {
    const user = await userWithGrants(t.db, grants);
    const panic = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: user.token });
    expect({ status: panic.statusCode, body: panic.json() }).toEqual({
      status,
      body: status === 200 ? PANIC_OFF : orDenied,
    });
    const mine = await t.request({ method: 'GET', url: '/v1/me/permissions', token: user.token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().permissions).toEqual(effective);
  });

  it('a grant that lapses stops working on the next request with the same token', async () => {
    const user = await userWithGrants(t.db, [{ keys: ['ops.read'], expiresAt: new Date(Date.now() + DAY_MS) }]);
    expect((await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: user.token })).statusCode).toBe(200);
    await t.db
      .updateTable('user_roles')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', user.id)
      .execute();
    const response = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: user.token });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 403, body: orDenied });
  });

  it('GET /v1/me/permissions expands wildcards into sorted catalog keys and lists the active roles', async () => {
    const everything = await createUser(t.db, ['*']);
    const all = await t.request({ method: 'GET', url: '/v1/me/permissions', token: everything.token });
    expect(all.json()).toEqual({
      permissions: [...PERMISSIONS.keys],
      roles: [{ key: `test-${everything.id.slice(0, 8)}`, name: `Test role of ${everything.email}`, expires_at: null }],
    });

    const mixed = await createUser(t.db, ['users.read', 'billing.*', 'users.delete']);
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/permissions', token: mixed.token })).json().permissions,
    ).toEqual(['billing.grant', 'billing.read', 'billing.write', 'users.delete', 'users.read']);
  });

  it('a first-time subject (no user row, no grants) holds nothing', async () => {
    const token = await signToken({ sub: randomUUID(), email: 'newcomer@example.test' });
    const response = await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 403, body: orDenied });
    expect((await t.request({ method: 'GET', url: '/v1/me/permissions', token })).json()).toEqual({
      permissions: [],
      roles: [],
    });
  });
});

describe('PermissionSet', () => {
  it.each([
    { granted: ['users.read'], key: 'users.read', has: true },
    { granted: ['users.read'], key: 'users.write', has: false },
    { granted: ['users.*'], key: 'users.write', has: true },
    { granted: ['users.*'], key: 'roles.read', has: false },
    { granted: ['*'], key: 'billing.write', has: true },
    { granted: ['*'], key: 'anything.at.all', has: true },
    { granted: ['ops.*'], key: 'opsx.read', has: false },
    { granted: ['ops.read', 'ops.panic'], key: 'ops.write', has: false },
    { granted: [], key: 'users.read', has: false },
  ])('has($key) with $granted → $has', ({ granted, key, has }) => {
    expect(new PermissionSet(granted).has(key)).toBe(has);
  });

  it.each([
    { granted: ['*'], grantable: '*', covers: true },
    { granted: ['users.*'], grantable: '*', covers: false },
    { granted: ['*'], grantable: 'users.*', covers: true },
    { granted: ['users.*'], grantable: 'users.*', covers: true },
    // Holding every key of a resource one by one is not the wildcard: it would also pass on keys added later.
    { granted: ['ops.read', 'ops.panic'], grantable: 'ops.*', covers: false },
    { granted: ['roles.*'], grantable: 'users.*', covers: false },
    { granted: ['users.*'], grantable: 'users.delete', covers: true },
    { granted: ['*'], grantable: 'users.delete', covers: true },
    { granted: ['users.read'], grantable: 'users.read', covers: true },
    { granted: ['users.read'], grantable: 'users.write', covers: false },
    { granted: [], grantable: 'users.read', covers: false },
  ])('covers($grantable) with $granted → $covers', ({ granted, grantable, covers }) => {
    expect(new PermissionSet(granted).covers(grantable)).toBe(covers);
  });

  it('hasAny is OR over the keys, false for none', () => {
    const set = new PermissionSet(['ops.panic']);
    expect(set.hasAny(['ops.read', 'ops.panic'])).toBe(true);
    expect(set.hasAny(['ops.read', 'users.read'])).toBe(false);
    expect(set.hasAny([])).toBe(false);
    expect(new PermissionSet(['*']).hasAny([])).toBe(false);
  });

  it('effectiveKeys: sorted catalog keys only, wildcards expanded, unknown grants dropped', () => {
    expect(new PermissionSet(['*']).effectiveKeys(PERMISSIONS)).toEqual([...PERMISSIONS.keys].sort());
    expect(new PermissionSet(['ops.*', 'users.read', 'users.read']).effectiveKeys(PERMISSIONS)).toEqual([
      'ops.panic',
      'ops.read',
      'users.read',
    ]);
    expect(
      new PermissionSet(['support.write', 'audit.read', 'legacy.thing', 'nope.*']).effectiveKeys(PERMISSIONS),
    ).toEqual(['audit.read', 'support.write']);
    expect(new PermissionSet([]).effectiveKeys(PERMISSIONS)).toEqual([]);
  });

  it('grants: the raw grants, wildcards kept, sorted and deduplicated', () => {
    expect(new PermissionSet(['users.read', '*', 'ops.*', 'users.read']).grants()).toEqual([
      '*',
      'ops.*',
      'users.read',
    ]);
  });
});

describe('PermissionCatalog.isGrantable', () => {
  it.each([
    { key: 'users.read', grantable: true },
    { key: 'ops.panic', grantable: true },
    { key: '*', grantable: true },
    { key: 'ops.*', grantable: true },
    { key: 'support.*', grantable: true },
    { key: 'users.admin', grantable: false },
    { key: 'nope.read', grantable: false },
    { key: 'nope.*', grantable: false },
    { key: '*.*', grantable: false },
    { key: '.*', grantable: false },
    { key: 'users', grantable: false },
    { key: 'users.', grantable: false },
    { key: 'users.read.*', grantable: false },
    { key: 'USERS.READ', grantable: false },
    { key: ' users.read', grantable: false },
    { key: '', grantable: false },
  ])('$key → $grantable', ({ key, grantable }) => {
    expect(PERMISSIONS.isGrantable(key)).toBe(grantable);
  });

  it('every catalog key and every catalog resource wildcard is grantable', () => {
    for (const key of PERMISSIONS.keys) {
      expect(PERMISSIONS.isGrantable(key)).toBe(true);
      expect(PERMISSIONS.isGrantable(`${key.split('.')[0]}.*`)).toBe(true);
    }
  });
});

describe('permText', () => {
  it('joins several keys with " | " and leaves one key alone', () => {
    expect(permText(['ops.read', 'ops.panic'])).toBe('ops.read | ops.panic');
    expect(permText(['a.b', 'c.d', 'e.f'])).toBe('a.b | c.d | e.f');
    expect(permText(['roles.read'])).toBe('roles.read');
  });
});
