import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PERMISSION_CATALOG } from '../../../src/modules/index.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { expectRefusedUnrecorded, requestIdOf } from '../../helpers/expectations.js';
import { storedState } from '../../helpers/stored-state.js';

/**
 * The roles module against the spec: the role routes of issue 2 item 6 and the documented
 * operations 4 (setAdminRolePermissions), 14 (bulkAssignAdminUserRoles) and 16 (deleteAdminRole).
 * Every success is checked in the tables, the audit log and the event outbox; every refusal is
 * checked to leave all of them untouched.
 */

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';
const USER_AGENT = 'roles-test/1.0';
const DAY_MS = 86_400_000;

type Db = TestApp['db'];
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

// ---------------------------------------------------------------------------------------------
// Helpers: requests, seeded rows, stored state
// ---------------------------------------------------------------------------------------------

let keyCounter = 0;
/** A role key no other test uses (keys are unique across the shared database). */
function uniqueKey(prefix: string): string {
  return `${prefix}-${++keyCounter}-${randomUUID().slice(0, 6)}`;
}

async function call(
  t: TestApp,
  caller: TestUser | null,
  method: Method,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url,
    token: caller?.token,
    headers: { 'user-agent': USER_AGENT },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** A role made straight in the database (setup, not under test). */
async function seedRole(
  db: Db,
  permissions: string[],
  options: { key?: string; name?: string; description?: string | null } = {},
) {
  const key = options.key ?? uniqueKey('seeded');
  const role = await db
    .insertInto('roles')
    .values({ key, name: options.name ?? `Seeded ${key}`, description: options.description ?? null })
    .returning(['id', 'key'])
    .executeTakeFirstOrThrow();
  if (permissions.length > 0) {
    await db
      .insertInto('role_permissions')
      .values(permissions.map((permission_key) => ({ role_id: role.id, permission_key })))
      .execute();
  }
  return role;
}

async function seedGrant(db: Db, userId: string, roleId: string, expiresAt: Date | null) {
  await db
    .insertInto('user_roles')
    .values({ user_id: userId, role_id: roleId, granted_by: null, reason: 'seed', expires_at: expiresAt })
    .execute();
}

async function permissionsOf(db: Db, roleId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('role_permissions')
    .select('permission_key')
    .where('role_id', '=', roleId)
    .orderBy('permission_key')
    .execute();
  return rows.map((row) => row.permission_key);
}

async function grantsOf(db: Db, roleId: string) {
  return db.selectFrom('user_roles').selectAll().where('role_id', '=', roleId).orderBy('user_id').execute();
}

/** Everything a roles request may touch; a refusal must leave all of it as it was. */
const rolesState = (db: Db) =>
  storedState(
    db,
    { roles: ['id'], role_permissions: ['role_id', 'permission_key'], user_roles: ['user_id', 'role_id'] },
    ['audit_log', 'event_outbox'],
  );

async function auditRowsOf(db: Db, requestId: string) {
  return db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).orderBy('target_id').execute();
}

async function outboxRowsOf(db: Db, requestId: string) {
  return db
    .selectFrom('event_outbox')
    .select(['kind', 'name', 'payload', 'actor_id', 'request_id'])
    .where('request_id', '=', requestId)
    .orderBy('id')
    .execute();
}

/** The audit row a staff write of `actor` leaves, with the request context of `call`. */
function auditRow(
  actor: TestUser,
  requestId: string,
  fields: { action: string; target_type: string; target_id: string; reason?: string | null; summary: unknown },
) {
  return {
    id: expect.any(String),
    created_at: expect.any(Date),
    actor_id: actor.id,
    action: fields.action,
    target_type: fields.target_type,
    target_id: fields.target_id,
    request_id: requestId,
    ip: '127.0.0.1',
    user_agent: USER_AGENT,
    reason: fields.reason ?? null,
    summary: fields.summary,
  };
}

/** The event is in the outbox under this request and reaches in-process subscribers after commit. */
async function expectEvent(
  t: TestApp,
  requestId: string,
  actor: TestUser,
  name: string,
  payload: Record<string, unknown>,
) {
  expect(await outboxRowsOf(t.db, requestId)).toEqual([
    { kind: 'dashboard', name, payload, actor_id: actor.id, request_id: requestId },
  ]);
  await eventually(() => {
    expect(t.events.filter((event) => event.requestId === requestId)).toEqual([
      expect.objectContaining({ kind: 'dashboard', name, payload, actorId: actor.id, requestId }),
    ]);
  });
}

/** A refusal: exact status and body, nothing stored; and no audit row or event names its request. */
const expectRefusal = (t: TestApp, send: () => Promise<LightMyRequestResponse>, status: number, body: unknown) =>
  expectRefusedUnrecorded(t.db, () => rolesState(t.db), send, status, body);

// Validation bodies (spec "Errors": 400 SchemaError with zod's issues).
const schemaError = (...issues: unknown[]) => ({ success: false, error: { name: 'SchemaError', issues } });
const tooBig = (
  path: (string | number)[],
  maximum: number,
  origin: 'string' | 'array' | 'number',
  message: string,
) => ({
  code: 'too_big',
  maximum,
  origin,
  inclusive: true,
  message,
  path,
});
const tooSmall = (path: (string | number)[], minimum: number, origin: 'string' | 'array', message: string) => ({
  code: 'too_small',
  minimum,
  origin,
  inclusive: true,
  message,
  path,
});
const badKey = {
  format: 'regex',
  code: 'invalid_format',
  origin: 'string',
  pattern: '/^[a-z][a-z0-9_.-]{0,47}$/',
  message: 'key must match ^[a-z][a-z0-9_.-]{0,47}$',
  path: ['key'],
};
const badUuid = (path: (string | number)[]) => ({
  format: 'guid',
  code: 'invalid_format',
  origin: 'string',
  pattern: String(z.regexes.guid),
  message: 'Invalid GUID',
  path,
});
const unrecognized = (...keys: string[]) => ({
  code: 'unrecognized_keys',
  keys,
  path: [],
  message: `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map((k) => `"${k}"`).join(', ')}`,
});

const forbiddenBody = (perm: string) => ({ error: 'forbidden', details: { perm } });
/** A refused escalation names one missing key in `perm` and lists every missing key. */
const escalationBody = (missing: string[]) => ({ error: 'forbidden', details: { perm: missing[0], missing } });
const protectedBody = {
  error: 'invalid_request',
  details: { reason: 'role owner is protected and cannot be changed' },
};

// ---------------------------------------------------------------------------------------------
// GET /v1/admin/roles: paged list (own app so totals are exact)
// ---------------------------------------------------------------------------------------------

// The migrations seed exactly one role (the protected owner); the totals below count on that.
describe('GET /v1/admin/roles', () => {
  let t: TestApp;
  let reader: TestUser;
  let readerRoleKey: string;
  beforeAll(async () => {
    t = await startTestApp();
    reader = await createUser(t.db, ['roles.read']);
    readerRoleKey = `test-${reader.id.slice(0, 8)}`;
    await seedRole(t.db, ['users.read', 'audit.read'], {
      key: 'alpha-editors',
      name: 'Zulu editors',
      description: 'first by key',
    });
    await seedRole(t.db, [], { key: 'beta_viewers', name: 'Mike viewers' });
    const gamma = await seedRole(t.db, ['ops.*'], { key: 'gamma', name: 'Alpha operators' });
    // One active and one expired grant: member_count counts only the active one.
    const active = await createUser(t.db);
    const lapsed = await createUser(t.db);
    await seedGrant(t.db, active.id, gamma.id, new Date(Date.now() + DAY_MS));
    await seedGrant(t.db, lapsed.id, gamma.id, new Date(Date.now() - DAY_MS));
  });
  afterAll(async () => {
    await t.close();
  });

  const keysOf = (response: LightMyRequestResponse) =>
    (response.json().data as Array<{ key: string }>).map((role) => role.key);

  it('defaults to page 1, 25 per page, sorted by key ascending, with the full role view', async () => {
    const response = await call(t, reader, 'GET', '/v1/admin/roles');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25, total: 5 });
    expect(keysOf(response)).toEqual(['alpha-editors', 'beta_viewers', 'gamma', 'owner', readerRoleKey]);
    const stored = await t.db
      .selectFrom('roles')
      .selectAll()
      .where('key', '=', 'alpha-editors')
      .executeTakeFirstOrThrow();
    expect(body.data[0]).toEqual({
      id: stored.id,
      key: 'alpha-editors',
      name: 'Zulu editors',
      description: 'first by key',
      protected: false,
      permissions: ['audit.read', 'users.read'],
      member_count: 0,
      created_at: stored.created_at.toISOString(),
      updated_at: stored.updated_at.toISOString(),
    });
    expect(body.data.find((role: { key: string }) => role.key === 'gamma')).toMatchObject({
      permissions: ['ops.*'],
      member_count: 1,
    });
    expect(body.data.find((role: { key: string }) => role.key === 'owner')).toMatchObject({
      id: OWNER_ROLE_ID,
      protected: true,
      permissions: ['*'],
    });
  });

  it.each([
    {
      name: 'key:asc',
      query: 'sort=key:asc',
      keys: () => ['alpha-editors', 'beta_viewers', 'gamma', 'owner', readerRoleKey],
    },
    {
      name: 'key:desc',
      query: 'sort=key:desc',
      keys: () => [readerRoleKey, 'owner', 'gamma', 'beta_viewers', 'alpha-editors'],
    },
    {
      name: 'name:desc',
      query: 'sort=name:desc',
      keys: () => ['alpha-editors', readerRoleKey, 'owner', 'beta_viewers', 'gamma'],
    },
    {
      name: 'name:asc',
      query: 'sort=name:asc',
      keys: () => ['gamma', 'beta_viewers', 'owner', readerRoleKey, 'alpha-editors'],
    },
  ])('sorts by $name', async ({ query, keys }) => {
    const response = await call(t, reader, 'GET', `/v1/admin/roles?${query}`);
    expect(response.statusCode).toBe(200);
    expect(keysOf(response)).toEqual(keys());
  });

  it.each([
    {
      name: 'page 1 of 2 per page',
      query: 'per_page=2',
      meta: { page: 1, per_page: 2, total: 5 },
      keys: ['alpha-editors', 'beta_viewers'],
    },
    {
      name: 'page 2 of 2 per page',
      query: 'page=2&per_page=2',
      meta: { page: 2, per_page: 2, total: 5 },
      keys: ['gamma', 'owner'],
    },
    { name: 'a page past the end', query: 'page=9&per_page=2', meta: { page: 9, per_page: 2, total: 5 }, keys: [] },
    { name: 'q on the key', query: 'q=BETA', meta: { page: 1, per_page: 25, total: 1 }, keys: ['beta_viewers'] },
    { name: 'q on the name', query: 'q=operators', meta: { page: 1, per_page: 25, total: 1 }, keys: ['gamma'] },
    {
      name: 'q with an underscore matches it literally',
      query: 'q=_',
      meta: { page: 1, per_page: 25, total: 1 },
      keys: ['beta_viewers'],
    },
    {
      name: 'q with a percent sign matches it literally',
      query: 'q=%25',
      meta: { page: 1, per_page: 25, total: 0 },
      keys: [],
    },
    {
      name: 'q and paging together',
      query: 'q=a&per_page=1&page=2&sort=key:desc',
      meta: { page: 2, per_page: 1, total: 4 },
      keys: ['gamma'],
    },
  ])('pages and filters: $name', async ({ query, meta, keys }) => {
    const response = await call(t, reader, 'GET', `/v1/admin/roles?${query}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().meta).toEqual(meta);
    expect(keysOf(response)).toEqual(keys);
  });

  const sortMessage = 'sort must be one of key:asc|key:desc, name:asc|name:desc, created_at:asc|created_at:desc';
  const badSort = {
    format: 'regex',
    code: 'invalid_format',
    origin: 'string',
    pattern: '/^(key|name|created_at):(asc|desc)$/',
    message: sortMessage,
    path: ['sort'],
  };
  it.each([
    {
      name: 'a field outside the allow-list',
      query: 'sort=email:asc',
      issue: badSort,
    },
    {
      name: 'a bad direction',
      query: 'sort=key:up',
      issue: badSort,
    },
    {
      name: 'a bare field',
      query: 'sort=key',
      issue: badSort,
    },
    {
      name: 'per_page over 100',
      query: 'per_page=101',
      issue: tooBig(['per_page'], 100, 'number', 'Too big: expected number to be <=100'),
    },
    {
      name: 'page 0',
      query: 'page=0',
      issue: {
        code: 'too_small',
        minimum: 1,
        origin: 'number',
        inclusive: true,
        message: 'Too small: expected number to be >=1',
        path: ['page'],
      },
    },
  ])('400 SchemaError for $name', async ({ query, issue }) => {
    const response = await call(t, reader, 'GET', `/v1/admin/roles?${query}`);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: schemaError(issue) });
  });

  it('403 names roles.read for a caller without it; 401 without a token', async () => {
    const player = await createUser(t.db, ['roles.write', 'roles.assign']);
    const refused = await call(t, player, 'GET', '/v1/admin/roles');
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: forbiddenBody('roles.read'),
    });
    const anonymous = await call(t, null, 'GET', '/v1/admin/roles');
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The rest share one app; every test uses its own callers and roles.
// ---------------------------------------------------------------------------------------------

describe('roles module', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('GET /v1/admin/roles/{id}', () => {
    it('returns the built-in owner role', async () => {
      const reader = await createUser(t.db, ['roles.read']);
      const response = await call(t, reader, 'GET', `/v1/admin/roles/${OWNER_ROLE_ID}`);
      const stored = await t.db
        .selectFrom('roles')
        .selectAll()
        .where('id', '=', OWNER_ROLE_ID)
        .executeTakeFirstOrThrow();
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 200,
        body: {
          id: OWNER_ROLE_ID,
          key: 'owner',
          name: 'Owner',
          description: 'Holds every permission. Built in; cannot be changed or deleted.',
          protected: true,
          permissions: ['*'],
          member_count: 0,
          created_at: stored.created_at.toISOString(),
          updated_at: stored.updated_at.toISOString(),
        },
      });
    });

    it('counts only unexpired grants in member_count and lists permissions sorted', async () => {
      const reader = await createUser(t.db, ['roles.read']);
      const role = await seedRole(t.db, ['users.write', 'audit.read', 'users.read']);
      const [a, b, c] = [await createUser(t.db), await createUser(t.db), await createUser(t.db)];
      await seedGrant(t.db, a.id, role.id, null);
      await seedGrant(t.db, b.id, role.id, new Date(Date.now() + DAY_MS));
      await seedGrant(t.db, c.id, role.id, new Date(Date.now() - 1000));
      const response = await call(t, reader, 'GET', `/v1/admin/roles/${role.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: role.id,
        key: role.key,
        permissions: ['audit.read', 'users.read', 'users.write'],
        member_count: 2,
        protected: false,
      });
    });

    it.each([
      { name: 'an unknown uuid', id: randomUUID(), status: 404, body: { error: 'not_found' } },
      { name: 'a non-uuid id', id: 'not-a-uuid', status: 400, body: schemaError(badUuid(['id'])) },
    ])('$status for $name', async ({ id, status, body }) => {
      const reader = await createUser(t.db, ['roles.read']);
      const response = await call(t, reader, 'GET', `/v1/admin/roles/${id}`);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
    });
  });

  describe('GET /v1/admin/permissions', () => {
    it('lists every catalog key with its resource and description, and the grantable wildcards', async () => {
      const reader = await createUser(t.db, ['roles.read']);
      const response = await call(t, reader, 'GET', '/v1/admin/permissions');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const keys = (body.data as Array<{ key: string }>).map((entry) => entry.key);
      expect(keys).toEqual([...keys].sort());
      expect(keys).toHaveLength(Object.keys(PERMISSION_CATALOG).length);
      expect(body.data).toContainEqual({
        key: 'roles.write',
        resource: 'roles',
        description: 'Create, change and delete roles and their permission lists.',
      });
      expect(body.data).toContainEqual({
        key: 'ops.panic',
        resource: 'ops',
        description: 'Set the maintenance (panic) level.',
      });
      // Every key a route in this issue declares is in the catalog.
      for (const key of ['roles.read', 'roles.write', 'roles.assign', 'audit.read', 'ops.read', 'ops.panic'])
        expect(keys).toContain(key);
      // Each entry names its resource and carries the catalog's description.
      for (const entry of body.data as Array<{ key: string; resource: string; description: string }>) {
        expect(entry).toEqual({
          key: entry.key,
          resource: entry.key.split('.')[0],
          description: PERMISSION_CATALOG[entry.key as keyof typeof PERMISSION_CATALOG],
        });
        expect(entry.description.length).toBeGreaterThan(0);
      }
      // Grantable wildcards: `*`, then one `<resource>.*` per resource of the catalog, in key order.
      const resources = [...new Set(keys.map((key) => key.split('.')[0]))];
      expect(body.wildcards).toEqual(['*', ...resources.map((resource) => `${resource}.*`)]);
      expect(body.wildcards).toEqual(expect.arrayContaining(['*', 'ops.*', 'roles.*', 'users.*', 'billing.*']));
    });

    it('403 without roles.read', async () => {
      const caller = await createUser(t.db, ['roles.write']);
      const response = await call(t, caller, 'GET', '/v1/admin/permissions');
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 403,
        body: forbiddenBody('roles.read'),
      });
    });
  });

  describe('POST /v1/admin/roles', () => {
    it('201 {id}: stores the role and its permissions, audits roles.create', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.read', 'audit.read']);
      const key = uniqueKey('support');
      const response = await call(t, writer, 'POST', '/v1/admin/roles', {
        key,
        name: '  Support staff  ',
        description: 'Answers tickets',
        permissions: ['users.read', 'audit.read'],
      });
      expect(response.statusCode).toBe(201);
      const { id } = response.json();
      expect(response.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

      expect(await t.db.selectFrom('roles').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).toMatchObject({
        key,
        name: 'Support staff',
        description: 'Answers tickets',
        is_protected: false,
      });
      expect(await permissionsOf(t.db, id)).toEqual(['audit.read', 'users.read']);
      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.create',
          target_type: 'role',
          target_id: id,
          summary: { after: { key, name: 'Support staff', permissions: ['audit.read', 'users.read'] } },
        }),
      ]);

      // Readable through the API at once.
      const reader = await createUser(t.db, ['roles.read']);
      const read = await call(t, reader, 'GET', `/v1/admin/roles/${id}`);
      expect(read.json()).toMatchObject({
        id,
        key,
        name: 'Support staff',
        description: 'Answers tickets',
        permissions: ['audit.read', 'users.read'],
        member_count: 0,
        protected: false,
      });
    });

    it('201 with no permissions and no description; wildcards the caller covers are allowed', async () => {
      const writer = await createUser(t.db, ['roles.write', 'ops.*']);
      const bare = await call(t, writer, 'POST', '/v1/admin/roles', { key: uniqueKey('bare'), name: 'Bare' });
      expect(bare.statusCode).toBe(201);
      expect(await permissionsOf(t.db, bare.json().id)).toEqual([]);
      expect(
        await t.db.selectFrom('roles').select('description').where('id', '=', bare.json().id).executeTakeFirstOrThrow(),
      ).toEqual({ description: null });

      const ops = await call(t, writer, 'POST', '/v1/admin/roles', {
        key: uniqueKey('ops'),
        name: 'Ops',
        permissions: ['ops.*', 'ops.read'],
      });
      expect(ops.statusCode).toBe(201);
      expect(await permissionsOf(t.db, ops.json().id)).toEqual(['ops.*', 'ops.read']);
    });

    it('accepts the longest key and name, and exactly 200 permission entries are not refused by validation', async () => {
      const writer = await createUser(t.db, ['*']);
      const longKey = `k${randomUUID().replace(/-/g, '')}`.padEnd(48, 'x');
      const response = await call(t, writer, 'POST', '/v1/admin/roles', {
        key: longKey,
        name: 'n'.repeat(100),
        description: 'd'.repeat(500),
      });
      expect(response.statusCode).toBe(201);
      // 200 entries pass validation; they are then refused for being listed twice (409), not 400.
      const twoHundred = await call(t, writer, 'POST', '/v1/admin/roles', {
        key: uniqueKey('many'),
        name: 'Many',
        permissions: Array(200).fill('users.read'),
      });
      expect({ status: twoHundred.statusCode, body: twoHundred.json() }).toEqual({
        status: 409,
        body: { error: 'conflict', details: { reason: 'permission key listed twice', key: 'users.read' } },
      });
    });

    it('409 conflict on a taken key; nothing stored or audited', async () => {
      const writer = await createUser(t.db, ['roles.write']);
      const key = uniqueKey('taken');
      expect((await call(t, writer, 'POST', '/v1/admin/roles', { key, name: 'First' })).statusCode).toBe(201);
      await expectRefusal(t, () => call(t, writer, 'POST', '/v1/admin/roles', { key, name: 'Second' }), 409, {
        error: 'conflict',
        details: { reason: 'role key taken', key },
      });
      await expectRefusal(
        t,
        () => call(t, writer, 'POST', '/v1/admin/roles', { key: 'owner', name: 'Fake owner' }),
        409,
        { error: 'conflict', details: { reason: 'role key taken', key: 'owner' } },
      );
    });

    const validationCases: Array<{ name: string; body: Record<string, unknown>; issue: unknown }> = [
      { name: 'an upper-case key', body: { key: 'Support', name: 'x' }, issue: badKey },
      { name: 'a key starting with a digit', body: { key: '1support', name: 'x' }, issue: badKey },
      { name: 'a key with a space', body: { key: 'sup port', name: 'x' }, issue: badKey },
      { name: 'an empty key', body: { key: '', name: 'x' }, issue: badKey },
      { name: 'a 49-character key', body: { key: `a${'b'.repeat(48)}`, name: 'x' }, issue: badKey },
      {
        name: 'an empty name',
        body: { key: 'fine', name: '' },
        issue: tooSmall(['name'], 1, 'string', 'Too small: expected string to have >=1 characters'),
      },
      {
        name: 'a blank name',
        body: { key: 'fine', name: '   ' },
        issue: tooSmall(['name'], 1, 'string', 'Too small: expected string to have >=1 characters'),
      },
      {
        name: 'a 101-character name',
        body: { key: 'fine', name: 'n'.repeat(101) },
        issue: tooBig(['name'], 100, 'string', 'Too big: expected string to have <=100 characters'),
      },
      {
        name: 'a 501-character description',
        body: { key: 'fine', name: 'x', description: 'd'.repeat(501) },
        issue: tooBig(['description'], 500, 'string', 'Too big: expected string to have <=500 characters'),
      },
      {
        name: '201 permissions',
        body: { key: 'fine', name: 'x', permissions: Array(201).fill('users.read') },
        issue: tooBig(['permissions'], 200, 'array', 'Too big: expected array to have <=200 items'),
      },
      {
        name: 'an unknown body field',
        body: { key: 'fine', name: 'x', protected: true },
        issue: unrecognized('protected'),
      },
      {
        name: 'a missing name',
        body: { key: 'fine' },
        issue: {
          code: 'invalid_type',
          expected: 'string',
          path: ['name'],
          message: 'Invalid input: expected string, received undefined',
        },
      },
    ];
    it.each(validationCases)('400 SchemaError for $name; nothing stored', async ({ body, issue }) => {
      const writer = await createUser(t.db, ['*']);
      await expectRefusal(t, () => call(t, writer, 'POST', '/v1/admin/roles', body), 400, schemaError(issue));
    });

    it.each([
      {
        name: 'an unknown key',
        permissions: ['users.read', 'nope.read'],
        body: { error: 'invalid_request', details: { reason: 'unknown permission keys', invalid_keys: ['nope.read'] } },
      },
      {
        name: 'an unknown action of a known resource',
        permissions: ['users.admin'],
        body: {
          error: 'invalid_request',
          details: { reason: 'unknown permission keys', invalid_keys: ['users.admin'] },
        },
      },
      {
        name: 'a wildcard of an unknown resource',
        permissions: ['nope.*', '*.*'],
        body: {
          error: 'invalid_request',
          details: { reason: 'unknown permission keys', invalid_keys: ['nope.*', '*.*'] },
        },
      },
      {
        name: 'a key listed twice',
        permissions: ['users.read', 'audit.read', 'users.read'],
        body: { error: 'conflict', details: { reason: 'permission key listed twice', key: 'users.read' } },
        status: 409,
      },
    ])('refuses $name; nothing stored', async ({ permissions, body, status }) => {
      const writer = await createUser(t.db, ['*']);
      await expectRefusal(
        t,
        () => call(t, writer, 'POST', '/v1/admin/roles', { key: uniqueKey('refused'), name: 'Refused', permissions }),
        status ?? 422,
        body,
      );
    });

    it.each([
      {
        name: 'a concrete key the caller lacks',
        held: ['roles.write', 'users.read'],
        permissions: ['users.read', 'billing.read'],
        perm: 'billing.read',
      },
      {
        name: 'a resource wildcard when holding one key of it',
        held: ['roles.write', 'ops.read'],
        permissions: ['ops.*'],
        perm: 'ops.*',
      },
      {
        name: 'a resource wildcard when holding every key of it one by one',
        held: ['roles.write', 'ops.read', 'ops.panic'],
        permissions: ['ops.*'],
        perm: 'ops.*',
      },
      {
        name: '* when holding only a resource wildcard',
        held: ['roles.write', 'roles.*'],
        permissions: ['*'],
        perm: '*',
      },
      {
        name: 'roles.assign when holding only roles.write',
        held: ['roles.write'],
        permissions: ['roles.assign'],
        perm: 'roles.assign',
      },
    ])('403 forbidden (no self-escalation): $name', async ({ held, permissions, perm }) => {
      const writer = await createUser(t.db, held);
      await expectRefusal(
        t,
        () => call(t, writer, 'POST', '/v1/admin/roles', { key: uniqueKey('escalate'), name: 'Escalate', permissions }),
        403,
        escalationBody([perm]),
      );
    });

    it('403 names roles.write for a caller without it, before the body is validated', async () => {
      const reader = await createUser(t.db, ['roles.read', 'roles.assign']);
      await expectRefusal(
        t,
        () => call(t, reader, 'POST', '/v1/admin/roles', { key: 'Bad Key' }),
        403,
        forbiddenBody('roles.write'),
      );
    });
  });

  describe('PATCH /v1/admin/roles/{id}', () => {
    it('204: renames and redescribes; audits roles.update with before and after', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.read']);
      const role = await seedRole(t.db, ['users.read'], { name: 'Old name', description: 'old text' });
      await t.db.updateTable('roles').set({ updated_at: '2020-01-01T00:00:00Z' }).where('id', '=', role.id).execute();
      const before = await t.db.selectFrom('roles').selectAll().where('id', '=', role.id).executeTakeFirstOrThrow();
      const response = await call(t, writer, 'PATCH', `/v1/admin/roles/${role.id}`, {
        name: 'New name',
        description: 'new text',
      });
      expect({ status: response.statusCode, body: response.body }).toEqual({ status: 204, body: '' });
      const after = await t.db.selectFrom('roles').selectAll().where('id', '=', role.id).executeTakeFirstOrThrow();
      expect(after).toMatchObject({ key: role.key, name: 'New name', description: 'new text', is_protected: false });
      expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
      expect(await permissionsOf(t.db, role.id)).toEqual(['users.read']);
      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.update',
          target_type: 'role',
          target_id: role.id,
          summary: {
            before: { name: 'Old name', description: 'old text' },
            after: { name: 'New name', description: 'new text' },
          },
        }),
      ]);
    });

    it.each([
      {
        name: 'only the name keeps the description',
        body: { name: 'Renamed' },
        stored: { name: 'Renamed', description: 'keep me' },
      },
      {
        name: 'only the description keeps the name',
        body: { description: 'changed' },
        stored: { name: 'Keep', description: 'changed' },
      },
      { name: 'description null clears it', body: { description: null }, stored: { name: 'Keep', description: null } },
    ])('204: $name', async ({ body, stored }) => {
      const writer = await createUser(t.db, ['roles.write']);
      const role = await seedRole(t.db, [], { name: 'Keep', description: 'keep me' });
      const response = await call(t, writer, 'PATCH', `/v1/admin/roles/${role.id}`, body);
      expect(response.statusCode).toBe(204);
      expect(
        await t.db
          .selectFrom('roles')
          .select(['name', 'description'])
          .where('id', '=', role.id)
          .executeTakeFirstOrThrow(),
      ).toEqual(stored);
      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.update',
          target_type: 'role',
          target_id: role.id,
          summary: { before: { name: 'Keep', description: 'keep me' }, after: stored },
        }),
      ]);
    });

    it('422 for the protected owner role; nothing changes', async () => {
      const owner = await createUser(t.db, ['*']);
      await expectRefusal(
        t,
        () => call(t, owner, 'PATCH', `/v1/admin/roles/${OWNER_ROLE_ID}`, { name: 'Not the owner' }),
        422,
        protectedBody,
      );
    });

    it.each([
      {
        name: 'an unknown role',
        id: () => randomUUID(),
        body: { name: 'x' },
        status: 404,
        response: { error: 'not_found' },
      },
      {
        name: 'a non-uuid id',
        id: () => 'abc',
        body: { name: 'x' },
        status: 400,
        response: schemaError(badUuid(['id'])),
      },
      {
        name: 'an empty body',
        id: () => OWNER_ROLE_ID,
        body: {},
        status: 400,
        response: schemaError({ code: 'custom', message: 'provide at least one of name, description', path: [] }),
      },
      {
        name: 'a key change',
        id: () => OWNER_ROLE_ID,
        body: { name: 'x', key: 'renamed' },
        status: 400,
        response: schemaError(unrecognized('key')),
      },
      {
        name: 'a 101-character name',
        id: () => OWNER_ROLE_ID,
        body: { name: 'n'.repeat(101) },
        status: 400,
        response: schemaError(tooBig(['name'], 100, 'string', 'Too big: expected string to have <=100 characters')),
      },
    ])('$status for $name', async ({ id, body, status, response }) => {
      const writer = await createUser(t.db, ['roles.write']);
      await expectRefusal(t, () => call(t, writer, 'PATCH', `/v1/admin/roles/${id()}`, body), status, response);
    });

    it('403 without roles.write', async () => {
      const reader = await createUser(t.db, ['roles.read']);
      const role = await seedRole(t.db, []);
      await expectRefusal(
        t,
        () => call(t, reader, 'PATCH', `/v1/admin/roles/${role.id}`, { name: 'x' }),
        403,
        forbiddenBody('roles.write'),
      );
    });
  });

  // -------------------------------------------------------------------------------------------
  // Operation 4: setAdminRolePermissions
  // -------------------------------------------------------------------------------------------

  describe('PUT /v1/admin/roles/{id}/permissions (operation 4)', () => {
    const put = (caller: TestUser, id: string, keys: unknown) =>
      call(t, caller, 'PUT', `/v1/admin/roles/${id}/permissions`, { keys });

    it('204 replaces the whole list; audits roles.permissions_update; emits roles.permissions_updated', async () => {
      const writer = await createUser(t.db, ['roles.write', 'roles.read', 'users.read', 'audit.read']);
      const role = await seedRole(t.db, ['users.read', 'roles.read']);
      await t.db.updateTable('roles').set({ updated_at: '2020-01-01T00:00:00Z' }).where('id', '=', role.id).execute();
      const before = await t.db
        .selectFrom('roles')
        .select('updated_at')
        .where('id', '=', role.id)
        .executeTakeFirstOrThrow();
      const response = await put(writer, role.id, ['users.read', 'audit.read']);
      expect({ status: response.statusCode, body: response.body }).toEqual({ status: 204, body: '' });
      expect(await permissionsOf(t.db, role.id)).toEqual(['audit.read', 'users.read']);
      const after = await t.db
        .selectFrom('roles')
        .select('updated_at')
        .where('id', '=', role.id)
        .executeTakeFirstOrThrow();
      expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());

      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.permissions_update',
          target_type: 'role',
          target_id: role.id,
          summary: {
            before: { permissions: ['roles.read', 'users.read'] },
            after: { permissions: ['audit.read', 'users.read'] },
          },
        }),
      ]);
      await expectEvent(t, requestId, writer, 'roles.permissions_updated', {
        role_id: role.id,
        role_key: role.key,
        added: ['audit.read'],
        removed: ['roles.read'],
      });
    });

    it('204 with an empty list clears the role; the change reaches its holder on the next request', async () => {
      const writer = await createUser(t.db, ['roles.write', 'audit.read']);
      const role = await seedRole(t.db, ['audit.read']);
      const holder = await createUser(t.db);
      await seedGrant(t.db, holder.id, role.id, null);
      expect((await call(t, holder, 'GET', '/v1/admin/audit')).statusCode).toBe(200);

      const response = await put(writer, role.id, []);
      expect(response.statusCode).toBe(204);
      expect(await permissionsOf(t.db, role.id)).toEqual([]);
      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.permissions_update',
          target_type: 'role',
          target_id: role.id,
          summary: { before: { permissions: ['audit.read'] }, after: { permissions: [] } },
        }),
      ]);
      await expectEvent(t, requestId, writer, 'roles.permissions_updated', {
        role_id: role.id,
        role_key: role.key,
        added: [],
        removed: ['audit.read'],
      });

      const refused = await call(t, holder, 'GET', '/v1/admin/audit');
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 403,
        body: forbiddenBody('audit.read'),
      });
    });

    it.each([
      { name: 'removing it', keys: ['users.read'] },
      { name: 'keeping it beside a key the caller holds', keys: ['billing.read', 'users.read', 'audit.read'] },
    ])('403 for a role holding a key the caller lacks ($name); nothing changes', async ({ keys }) => {
      const writer = await createUser(t.db, ['roles.write', 'audit.read', 'users.read']);
      const role = await seedRole(t.db, ['billing.read', 'users.read']);
      await expectRefusal(t, () => put(writer, role.id, keys), 403, escalationBody(['billing.read']));
      expect(await permissionsOf(t.db, role.id)).toEqual(['billing.read', 'users.read']);
    });

    it('a caller holding every key of the role may remove some', async () => {
      const writer = await createUser(t.db, ['roles.write', 'audit.read', 'billing.*', 'users.read']);
      const role = await seedRole(t.db, ['billing.read', 'billing.write', 'users.read']);
      const response = await put(writer, role.id, ['billing.read', 'audit.read']);
      expect(response.statusCode).toBe(204);
      expect(await permissionsOf(t.db, role.id)).toEqual(['audit.read', 'billing.read']);
      await expectEvent(t, requestIdOf(response), writer, 'roles.permissions_updated', {
        role_id: role.id,
        role_key: role.key,
        added: ['audit.read'],
        removed: ['billing.write', 'users.read'],
      });
    });

    it('a caller holding a wildcard may add the keys it covers', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.*']);
      const role = await seedRole(t.db, []);
      const response = await put(writer, role.id, ['users.read', 'users.delete', 'users.*']);
      expect(response.statusCode).toBe(204);
      expect(await permissionsOf(t.db, role.id)).toEqual(['users.*', 'users.delete', 'users.read']);
    });

    it('404 not_found for an unknown role; 400 for a non-uuid id', async () => {
      const writer = await createUser(t.db, ['roles.write']);
      await expectRefusal(t, () => put(writer, randomUUID(), []), 404, { error: 'not_found' });
      await expectRefusal(t, () => put(writer, 'nope', []), 400, schemaError(badUuid(['id'])));
    });

    it.each([
      {
        name: '409 conflict for a key listed twice',
        held: ['*'],
        keys: ['users.read', 'audit.read', 'users.read'],
        status: 409,
        body: { error: 'conflict', details: { reason: 'permission key listed twice', key: 'users.read' } },
      },
      {
        name: '422 invalid_request for an unknown key',
        held: ['*'],
        keys: ['users.read', 'users.superpower'],
        status: 422,
        body: {
          error: 'invalid_request',
          details: { reason: 'unknown permission keys', invalid_keys: ['users.superpower'] },
        },
      },
      {
        name: '422 invalid_request for a wildcard of an unknown resource',
        held: ['*'],
        keys: ['teleport.*'],
        status: 422,
        body: {
          error: 'invalid_request',
          details: { reason: 'unknown permission keys', invalid_keys: ['teleport.*'] },
        },
      },
      {
        name: '403 when adding billing.* without holding it',
        held: ['roles.write', 'users.read', 'support.read', 'billing.read'],
        keys: ['users.read', 'billing.*'],
        status: 403,
        body: escalationBody(['billing.*']),
      },
      {
        name: '403 when adding a concrete key the caller lacks',
        held: ['roles.write', 'users.read', 'support.read'],
        keys: ['users.read', 'ops.panic'],
        status: 403,
        body: escalationBody(['ops.panic']),
      },
      {
        name: '403 when adding * as a resource-wildcard holder',
        held: ['roles.*', 'users.*', 'support.*'],
        keys: ['*'],
        status: 403,
        body: escalationBody(['*']),
      },
      {
        name: '403 without roles.write',
        held: ['roles.read', 'roles.assign'],
        keys: [],
        status: 403,
        body: forbiddenBody('roles.write'),
      },
      {
        name: '400 for more than 200 keys',
        held: ['*'],
        keys: Array(201).fill('users.read'),
        status: 400,
        body: schemaError(tooBig(['keys'], 200, 'array', 'Too big: expected array to have <=200 items')),
      },
      {
        name: '400 for an empty key',
        held: ['*'],
        keys: [''],
        status: 400,
        body: schemaError(tooSmall(['keys', 0], 1, 'string', 'Too small: expected string to have >=1 characters')),
      },
      {
        name: '400 for keys that are not a list',
        held: ['*'],
        keys: 'users.read',
        status: 400,
        body: schemaError({
          code: 'invalid_type',
          expected: 'array',
          path: ['keys'],
          message: 'Invalid input: expected array, received string',
        }),
      },
    ])('$name; a refusal changes nothing', async ({ held, keys, status, body }) => {
      const writer = await createUser(t.db, held);
      const role = await seedRole(t.db, ['users.read', 'support.read']);
      await expectRefusal(t, () => put(writer, role.id, keys), status, body);
      expect(await permissionsOf(t.db, role.id)).toEqual(['support.read', 'users.read']);
    });

    it('400 for an unknown body field', async () => {
      const writer = await createUser(t.db, ['*']);
      const role = await seedRole(t.db, ['users.read']);
      await expectRefusal(
        t,
        () => call(t, writer, 'PUT', `/v1/admin/roles/${role.id}/permissions`, { keys: [], role: 'x' }),
        400,
        schemaError(unrecognized('role')),
      );
    });

    it.each([
      { name: 'narrowing it', keys: ['users.read'] },
      { name: 'clearing it', keys: [] },
      { name: 'restating it', keys: ['*'] },
    ])('422 invalid_request for the protected owner role ($name); nothing changes', async ({ keys }) => {
      const owner = await createUser(t.db, ['*']);
      await expectRefusal(t, () => put(owner, OWNER_ROLE_ID, keys), 422, protectedBody);
      expect(await permissionsOf(t.db, OWNER_ROLE_ID)).toEqual(['*']);
    });
  });

  // -------------------------------------------------------------------------------------------
  // Operation 16: deleteAdminRole
  // -------------------------------------------------------------------------------------------

  describe('DELETE /v1/admin/roles/{id} (operation 16)', () => {
    it('204 deletes the role and its permissions; audits roles.delete with the reason; emits roles.deleted', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.read', 'audit.read']);
      const role = await seedRole(t.db, ['users.read', 'audit.read'], { name: 'Temporary' });
      const response = await call(
        t,
        writer,
        'DELETE',
        `/v1/admin/roles/${role.id}?reason=${encodeURIComponent('no longer needed')}`,
      );
      expect({ status: response.statusCode, body: response.body }).toEqual({ status: 204, body: '' });
      expect(await t.db.selectFrom('roles').select('id').where('id', '=', role.id).execute()).toEqual([]);
      expect(await permissionsOf(t.db, role.id)).toEqual([]);

      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(writer, requestId, {
          action: 'roles.delete',
          target_type: 'role',
          target_id: role.id,
          reason: 'no longer needed',
          summary: { before: { key: role.key, name: 'Temporary', permissions: ['audit.read', 'users.read'] } },
        }),
      ]);
      await expectEvent(t, requestId, writer, 'roles.deleted', { role_id: role.id, role_key: role.key });

      const reader = await createUser(t.db, ['roles.read']);
      expect((await call(t, reader, 'GET', `/v1/admin/roles/${role.id}`)).statusCode).toBe(404);
    });

    it('204 without a reason stores none; a 300-character reason is accepted', async () => {
      const writer = await createUser(t.db, ['roles.write']);
      const first = await seedRole(t.db, []);
      const plain = await call(t, writer, 'DELETE', `/v1/admin/roles/${first.id}`);
      expect(plain.statusCode).toBe(204);
      expect((await auditRowsOf(t.db, requestIdOf(plain))).map((row) => row.reason)).toEqual([null]);

      const second = await seedRole(t.db, []);
      const long = await call(t, writer, 'DELETE', `/v1/admin/roles/${second.id}?reason=${'r'.repeat(300)}`);
      expect(long.statusCode).toBe(204);
      expect((await auditRowsOf(t.db, requestIdOf(long))).map((row) => row.reason)).toEqual(['r'.repeat(300)]);
    });

    it('a role whose only grants are expired deletes fine, taking the lapsed grants with it', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.read']);
      const role = await seedRole(t.db, ['users.read']);
      const lapsed = await createUser(t.db);
      await seedGrant(t.db, lapsed.id, role.id, new Date(Date.now() - 60_000));
      const response = await call(t, writer, 'DELETE', `/v1/admin/roles/${role.id}`);
      expect(response.statusCode).toBe(204);
      expect(await grantsOf(t.db, role.id)).toEqual([]);
      expect(await t.db.selectFrom('users').select('id').where('id', '=', lapsed.id).execute()).toEqual([
        { id: lapsed.id },
      ]);
    });

    it('409 conflict while users hold an unexpired grant (details.active_grants counts only those)', async () => {
      const writer = await createUser(t.db, ['roles.write', 'users.read']);
      const role = await seedRole(t.db, ['users.read']);
      const [permanent, later, lapsed] = [await createUser(t.db), await createUser(t.db), await createUser(t.db)];
      await seedGrant(t.db, permanent.id, role.id, null);
      await seedGrant(t.db, later.id, role.id, new Date(Date.now() + DAY_MS));
      await seedGrant(t.db, lapsed.id, role.id, new Date(Date.now() - DAY_MS));
      await expectRefusal(t, () => call(t, writer, 'DELETE', `/v1/admin/roles/${role.id}?reason=cleanup`), 409, {
        error: 'conflict',
        details: { reason: 'role is still granted; revoke it first', active_grants: 2 },
      });
      expect(await grantsOf(t.db, role.id)).toHaveLength(3);
    });

    it.each([
      {
        name: '404 not_found for an unknown role',
        id: () => randomUUID(),
        query: '',
        status: 404,
        body: { error: 'not_found' },
      },
      {
        name: '422 invalid_request for the protected owner role',
        id: () => OWNER_ROLE_ID,
        query: '?reason=try',
        status: 422,
        body: protectedBody,
      },
      {
        name: '400 for a 301-character reason',
        id: () => OWNER_ROLE_ID,
        query: `?reason=${'r'.repeat(301)}`,
        status: 400,
        body: schemaError(tooBig(['reason'], 300, 'string', 'Too big: expected string to have <=300 characters')),
      },
      { name: '400 for a non-uuid id', id: () => 'owner', query: '', status: 400, body: schemaError(badUuid(['id'])) },
    ])('$name; nothing changes', async ({ id, query, status, body }) => {
      const writer = await createUser(t.db, ['*']);
      await expectRefusal(t, () => call(t, writer, 'DELETE', `/v1/admin/roles/${id()}${query}`), status, body);
    });

    it('403 without roles.write', async () => {
      const assigner = await createUser(t.db, ['roles.read', 'roles.assign']);
      const role = await seedRole(t.db, []);
      await expectRefusal(
        t,
        () => call(t, assigner, 'DELETE', `/v1/admin/roles/${role.id}`),
        403,
        forbiddenBody('roles.write'),
      );
    });
  });

  // -------------------------------------------------------------------------------------------
  // Operation 14: bulkAssignAdminUserRoles
  // -------------------------------------------------------------------------------------------

  describe('POST /v1/admin/users/bulk/roles (operation 14)', () => {
    const bulk = (caller: TestUser, body: Record<string, unknown>) =>
      call(t, caller, 'POST', '/v1/admin/users/bulk/roles', body);

    it('grant: 200 with results in input order; unknown users fail with 23503; rows, audit and event', async () => {
      const assigner = await createUser(t.db, ['roles.assign', 'users.read']);
      const role = await seedRole(t.db, ['users.read']);
      const [first, second] = [await createUser(t.db), await createUser(t.db)];
      const ghost = randomUUID();
      const expiresAt = new Date(Date.now() + 7 * DAY_MS).toISOString();
      // Descending id order, so answering in any sorted (or set) order would show.
      const userIds = [first.id, second.id, ghost].sort().reverse();
      const response = await bulk(assigner, {
        user_ids: userIds,
        role_key: role.key,
        action: 'grant',
        expires_at: expiresAt,
        reason: 'on call',
      });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 200,
        body: {
          results: userIds.map((userId) =>
            userId === ghost ? { user_id: ghost, ok: false, error: '23503' } : { user_id: userId, ok: true },
          ),
        },
      });

      expect(await grantsOf(t.db, role.id)).toEqual(
        [first.id, second.id].sort().map((userId) => ({
          user_id: userId,
          role_id: role.id,
          granted_by: assigner.id,
          reason: 'on call',
          expires_at: new Date(expiresAt),
          created_at: expect.any(Date),
        })),
      );
      expect(await t.db.selectFrom('users').select('id').where('id', '=', ghost).execute()).toEqual([]);

      const requestId = requestIdOf(response);
      expect(await auditRowsOf(t.db, requestId)).toEqual(
        [first.id, second.id].sort().map((userId) =>
          auditRow(assigner, requestId, {
            action: 'users.role_grant',
            target_type: 'user',
            target_id: userId,
            reason: 'on call',
            summary: { role_key: role.key, role_id: role.id, expires_at: expiresAt },
          }),
        ),
      );
      await expectEvent(t, requestId, assigner, 'users.bulk_role_grant', {
        role_key: role.key,
        role_id: role.id,
        succeeded: 2,
        failed: 1,
      });
    });

    it('grant without expiry or reason stores a permanent grant; a repeated grant refreshes expiry, reason and grantor', async () => {
      const [firstAssigner, secondAssigner] = [
        await createUser(t.db, ['roles.assign']),
        await createUser(t.db, ['roles.assign']),
      ];
      const role = await seedRole(t.db, []);
      const user = await createUser(t.db);
      const permanent = await bulk(firstAssigner, { user_ids: [user.id], role_key: role.key, action: 'grant' });
      expect(permanent.json()).toEqual({ results: [{ user_id: user.id, ok: true }] });
      expect(await grantsOf(t.db, role.id)).toEqual([
        expect.objectContaining({ user_id: user.id, granted_by: firstAssigner.id, reason: null, expires_at: null }),
      ]);
      expect((await auditRowsOf(t.db, requestIdOf(permanent)))[0]).toMatchObject({
        reason: null,
        summary: { role_key: role.key, role_id: role.id, expires_at: null },
      });

      const expiresAt = new Date(Date.now() + 2 * DAY_MS).toISOString();
      const again = await bulk(secondAssigner, {
        user_ids: [user.id],
        role_key: role.key,
        action: 'grant',
        expires_at: expiresAt,
        reason: 'extended',
      });
      expect(again.json()).toEqual({ results: [{ user_id: user.id, ok: true }] });
      expect(await grantsOf(t.db, role.id)).toEqual([
        expect.objectContaining({
          user_id: user.id,
          granted_by: secondAssigner.id,
          reason: 'extended',
          expires_at: new Date(expiresAt),
        }),
      ]);
      const requestId = requestIdOf(again);
      expect(await auditRowsOf(t.db, requestId)).toEqual([
        auditRow(secondAssigner, requestId, {
          action: 'users.role_grant',
          target_type: 'user',
          target_id: user.id,
          reason: 'extended',
          summary: { role_key: role.key, role_id: role.id, expires_at: expiresAt },
        }),
      ]);
    });

    it('a user listed twice gets one grant, one audit row and two results', async () => {
      const assigner = await createUser(t.db, ['roles.assign']);
      const role = await seedRole(t.db, []);
      const user = await createUser(t.db);
      const response = await bulk(assigner, {
        user_ids: [user.id, user.id.toUpperCase()],
        role_key: role.key,
        action: 'grant',
      });
      expect(response.json()).toEqual({
        results: [
          { user_id: user.id, ok: true },
          { user_id: user.id.toUpperCase(), ok: true },
        ],
      });
      expect(await grantsOf(t.db, role.id)).toHaveLength(1);
      expect(await auditRowsOf(t.db, requestIdOf(response))).toHaveLength(1);
      await expectEvent(t, requestIdOf(response), assigner, 'users.bulk_role_grant', {
        role_key: role.key,
        role_id: role.id,
        succeeded: 1,
        failed: 0,
      });
    });

    it('revoke: deletes the grants, leaves other users and roles alone; audits users.role_revoke; emits users.bulk_role_revoke', async () => {
      const assigner = await createUser(t.db, ['roles.assign', 'audit.read']);
      const role = await seedRole(t.db, ['audit.read']);
      const other = await seedRole(t.db, ['audit.read']);
      const [revoked, kept, neverHeld] = [await createUser(t.db), await createUser(t.db), await createUser(t.db)];
      await seedGrant(t.db, revoked.id, role.id, null);
      await seedGrant(t.db, kept.id, role.id, null);
      await seedGrant(t.db, revoked.id, other.id, null);
      const ghost = randomUUID();
      const response = await bulk(assigner, {
        user_ids: [revoked.id, neverHeld.id, ghost],
        role_key: role.key,
        action: 'revoke',
        reason: 'rotation',
      });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 200,
        body: {
          results: [
            { user_id: revoked.id, ok: true },
            { user_id: neverHeld.id, ok: true },
            { user_id: ghost, ok: false, error: '23503' },
          ],
        },
      });
      expect((await grantsOf(t.db, role.id)).map((grant) => grant.user_id)).toEqual([kept.id]);
      expect((await grantsOf(t.db, other.id)).map((grant) => grant.user_id)).toEqual([revoked.id]);

      const requestId = requestIdOf(response);
      // Only the grant that existed is audited; the user who never held the role changed nothing.
      expect(await auditRowsOf(t.db, requestId)).toEqual(
        [revoked.id].map((userId) =>
          auditRow(assigner, requestId, {
            action: 'users.role_revoke',
            target_type: 'user',
            target_id: userId,
            reason: 'rotation',
            summary: { role_key: role.key, role_id: role.id, expires_at: null },
          }),
        ),
      );
      await expectEvent(t, requestId, assigner, 'users.bulk_role_revoke', {
        role_key: role.key,
        role_id: role.id,
        succeeded: 2,
        failed: 1,
      });
    });

    it('an unknown role_key fails every user with 23503 and changes nothing', async () => {
      const assigner = await createUser(t.db, ['roles.assign']);
      const user = await createUser(t.db);
      const ghost = randomUUID();
      for (const action of ['grant', 'revoke']) {
        await expectRefusal(
          t,
          () => bulk(assigner, { user_ids: [user.id, ghost], role_key: 'no-such-role', action }),
          200,
          {
            results: [
              { user_id: user.id, ok: false, error: '23503' },
              { user_id: ghost, ok: false, error: '23503' },
            ],
          },
        );
      }
    });

    it("a granted role takes effect on the user's next request with the same token; a revoke takes it away", async () => {
      const assigner = await createUser(t.db, ['roles.assign', 'audit.read']);
      const role = await seedRole(t.db, ['audit.read']);
      const user = await createUser(t.db);
      const before = await call(t, user, 'GET', '/v1/admin/audit');
      expect({ status: before.statusCode, body: before.json() }).toEqual({
        status: 403,
        body: forbiddenBody('audit.read'),
      });

      expect((await bulk(assigner, { user_ids: [user.id], role_key: role.key, action: 'grant' })).statusCode).toBe(200);
      expect((await call(t, user, 'GET', '/v1/admin/audit')).statusCode).toBe(200);
      expect((await call(t, user, 'GET', '/v1/me/permissions')).json()).toMatchObject({ permissions: ['audit.read'] });

      expect((await bulk(assigner, { user_ids: [user.id], role_key: role.key, action: 'revoke' })).statusCode).toBe(
        200,
      );
      expect((await call(t, user, 'GET', '/v1/admin/audit')).statusCode).toBe(403);
    });

    it.each([
      {
        name: 'granting owner as a roles.assign-only caller',
        held: ['roles.assign'],
        role: 'owner',
        action: 'grant',
        perm: '*',
      },
      {
        name: 'revoking owner as a roles.assign-only caller',
        held: ['roles.assign'],
        role: 'owner',
        action: 'revoke',
        perm: '*',
      },
      {
        name: 'granting owner with every resource wildcard but not *',
        held: ['roles.*', 'users.*', 'ops.*', 'billing.*'],
        role: 'owner',
        action: 'grant',
        perm: '*',
      },
      {
        name: 'granting a role holding a key the caller lacks',
        held: ['roles.assign', 'users.read'],
        role: 'seeded',
        action: 'grant',
        perm: 'billing.read',
      },
      {
        name: 'a caller without roles.assign',
        held: ['roles.write', 'roles.read'],
        role: 'seeded',
        action: 'grant',
        perm: 'roles.assign',
      },
    ])('403 forbidden for $name; nothing changes', async ({ held, role, action, perm }) => {
      const caller = await createUser(t.db, held);
      const seeded = await seedRole(t.db, ['users.read', 'billing.read']);
      const target = await createUser(t.db);
      // Expiring: the database would refuse the clean-up below if the target were the last active owner.
      await seedGrant(t.db, target.id, OWNER_ROLE_ID, new Date(Date.now() + DAY_MS));
      const roleKey = role === 'owner' ? 'owner' : seeded.key;
      const guard = !held.includes('roles.assign') && !held.includes('roles.*');
      await expectRefusal(
        t,
        () => bulk(caller, { user_ids: [target.id], role_key: roleKey, action }),
        403,
        guard ? forbiddenBody(perm) : escalationBody([perm]),
      );
      await t.db.deleteFrom('user_roles').where('user_id', '=', target.id).execute();
    });

    it('an owner may grant the owner role', async () => {
      const owner = await createUser(t.db, ['*']);
      const user = await createUser(t.db);
      const response = await bulk(owner, {
        user_ids: [user.id],
        role_key: 'owner',
        action: 'grant',
        reason: 'co-owner',
      });
      expect(response.json()).toEqual({ results: [{ user_id: user.id, ok: true }] });
      expect(
        await t.db
          .selectFrom('user_roles')
          .select(['role_id', 'granted_by', 'reason'])
          .where('user_id', '=', user.id)
          .execute(),
      ).toEqual([{ role_id: OWNER_ROLE_ID, granted_by: owner.id, reason: 'co-owner' }]);
      // The new owner stays: the database refuses to remove the last active owner, tests included.
    });

    it('422 invalid_request for an expires_at in the past; nothing changes', async () => {
      const assigner = await createUser(t.db, ['roles.assign']);
      const role = await seedRole(t.db, []);
      const user = await createUser(t.db);
      await expectRefusal(
        t,
        () =>
          bulk(assigner, {
            user_ids: [user.id],
            role_key: role.key,
            action: 'grant',
            expires_at: new Date(Date.now() - 60_000).toISOString(),
          }),
        422,
        {
          error: 'invalid_request',
          details: { reason: 'expires_at must be in the future' },
        },
      );
    });

    it('accepts 500 users; each unknown one fails on its own', async () => {
      const assigner = await createUser(t.db, ['roles.assign']);
      const role = await seedRole(t.db, []);
      const user = await createUser(t.db);
      const ids = [user.id, ...Array.from({ length: 499 }, () => randomUUID())];
      const response = await bulk(assigner, { user_ids: ids, role_key: role.key, action: 'grant' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        results: ids.map((id, index) =>
          index === 0 ? { user_id: id, ok: true } : { user_id: id, ok: false, error: '23503' },
        ),
      });
      expect((await grantsOf(t.db, role.id)).map((grant) => grant.user_id)).toEqual([user.id]);
      await expectEvent(t, requestIdOf(response), assigner, 'users.bulk_role_grant', {
        role_key: role.key,
        role_id: role.id,
        succeeded: 1,
        failed: 499,
      });
    });

    const validUser = randomUUID();
    it.each([
      {
        name: 'no users',
        body: { user_ids: [], role_key: 'x', action: 'grant' },
        issue: tooSmall(['user_ids'], 1, 'array', 'Too small: expected array to have >=1 items'),
      },
      {
        name: '501 users',
        body: { user_ids: Array.from({ length: 501 }, () => validUser), role_key: 'x', action: 'grant' },
        issue: tooBig(['user_ids'], 500, 'array', 'Too big: expected array to have <=500 items'),
      },
      {
        name: 'a non-uuid user id',
        body: { user_ids: [validUser, 'bob'], role_key: 'x', action: 'grant' },
        issue: badUuid(['user_ids', 1]),
      },
      {
        name: 'an empty role_key',
        body: { user_ids: [validUser], role_key: '', action: 'grant' },
        issue: tooSmall(['role_key'], 1, 'string', 'Too small: expected string to have >=1 characters'),
      },
      {
        name: 'a 49-character role_key',
        body: { user_ids: [validUser], role_key: 'r'.repeat(49), action: 'grant' },
        issue: tooBig(['role_key'], 48, 'string', 'Too big: expected string to have <=48 characters'),
      },
      {
        name: 'an unknown action',
        body: { user_ids: [validUser], role_key: 'x', action: 'toggle' },
        issue: {
          code: 'invalid_value',
          values: ['grant', 'revoke'],
          path: ['action'],
          message: 'Invalid option: expected one of "grant"|"revoke"',
        },
      },
      {
        name: 'an expires_at that is not a date-time',
        body: { user_ids: [validUser], role_key: 'x', action: 'grant', expires_at: 'tomorrow' },
        issue: { code: 'invalid_format', format: 'datetime', message: 'Invalid ISO datetime', path: ['expires_at'] },
      },
      {
        name: 'a 301-character reason',
        body: { user_ids: [validUser], role_key: 'x', action: 'grant', reason: 'r'.repeat(301) },
        issue: tooBig(['reason'], 300, 'string', 'Too big: expected string to have <=300 characters'),
      },
      {
        name: 'an unknown body field',
        body: { user_ids: [validUser], role_key: 'x', action: 'grant', notify: true },
        issue: unrecognized('notify'),
      },
    ])('400 SchemaError for $name', async ({ body, issue }) => {
      const assigner = await createUser(t.db, ['*']);
      await expectRefusal(t, () => bulk(assigner, body), 400, schemaError(issue));
    });
  });
});
