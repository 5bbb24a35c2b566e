import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaError } from '../../../helpers/expectations.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

/**
 * Alert subscriptions of roles (GET /v1/admin/alerts, GET/PUT /v1/admin/roles/{id}/alerts):
 * every answer checked against the stored subscriptions, the audit log and the event outbox.
 * Delivery to sockets is in realtime/realtime.test.ts.
 */

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

let t: TestApp;
let admin: TestUser;
let roleId: string;
let roleKey: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createUser(t.db, ['roles.read', 'roles.write', 'ops.read']);
  roleKey = `alerts-${randomUUID().slice(0, 8)}`;
  roleId = (
    await t.db.insertInto('roles').values({ key: roleKey, name: 'On call' }).returning('id').executeTakeFirstOrThrow()
  ).id;
});
afterAll(async () => t.close());

const put = (caller: TestUser | null, id: string, payload: unknown) =>
  t.request({
    method: 'PUT',
    url: `/v1/admin/roles/${id}/alerts`,
    token: caller?.token,
    payload: payload as Record<string, unknown>,
  });
const stored = async (id: string) =>
  (
    await t.db
      .selectFrom('role_alert_subscriptions')
      .select('alert')
      .where('role_id', '=', id)
      .orderBy('alert')
      .execute()
  ).map((row) => row.alert);
const auditOf = (id: string) =>
  t.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id', 'summary'])
    .where('target_type', '=', 'role')
    .where('target_id', '=', id)
    .where('action', '=', 'roles.alerts.set')
    .orderBy('created_at')
    .execute();

describe('GET /v1/admin/alerts', () => {
  it('lists every alert with the permissions that read it', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/admin/alerts', token: admin.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [{ name: 'panic_mode_changed', description: expect.any(String), readable_with: ['ops.read', 'ops.panic'] }],
    });
  });

  it('401 without a token, 403 naming roles.read without it', async () => {
    expect((await t.request({ method: 'GET', url: '/v1/admin/alerts' })).json()).toEqual({ error: 'missing_token' });
    const response = await t.request({
      method: 'GET',
      url: '/v1/admin/alerts',
      token: (await createUser(t.db, ['ops.read'])).token,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'forbidden', details: { perm: 'roles.read' } });
  });
});

describe('GET /v1/admin/roles/{id}/alerts', () => {
  it('shows the seeded owner subscription and the role channel', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/v1/admin/roles/${OWNER_ROLE_ID}/alerts`,
      token: admin.token,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      role_id: OWNER_ROLE_ID,
      channel: 'alerts:owner',
      alerts: ['panic_mode_changed'],
    });
  });

  it('404 for an unknown role, 400 for a malformed id', async () => {
    const unknown = await t.request({
      method: 'GET',
      url: `/v1/admin/roles/${randomUUID()}/alerts`,
      token: admin.token,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found' });
    const malformed = await t.request({ method: 'GET', url: '/v1/admin/roles/not-a-uuid/alerts', token: admin.token });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual(schemaError({ path: ['id'] }));
  });
});

describe('PUT /v1/admin/roles/{id}/alerts', () => {
  it('replaces the subscriptions, audited with before and after, with a dashboard event', async () => {
    const response = await put(admin, roleId, { alerts: ['panic_mode_changed'] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ role_id: roleId, channel: `alerts:${roleKey}`, alerts: ['panic_mode_changed'] });
    expect(await stored(roleId)).toEqual(['panic_mode_changed']);
    expect(await auditOf(roleId)).toEqual([
      {
        action: 'roles.alerts.set',
        actor_id: admin.id,
        summary: { key: roleKey, before: { alerts: [] }, after: { alerts: ['panic_mode_changed'] } },
      },
    ]);
    await eventually(() =>
      expect(t.events.find((event) => event.name === 'roles.alerts_changed')).toMatchObject({
        kind: 'dashboard',
        payload: { role_id: roleId, key: roleKey, alerts: ['panic_mode_changed'] },
      }),
    );

    const silenced = await put(admin, roleId, { alerts: [] });
    expect(silenced.json()).toEqual({ role_id: roleId, channel: `alerts:${roleKey}`, alerts: [] });
    expect(await stored(roleId)).toEqual([]);
    expect((await auditOf(roleId)).at(-1)).toMatchObject({
      summary: { before: { alerts: ['panic_mode_changed'] }, after: { alerts: [] } },
    });
  });

  const refusals = [
    {
      name: 'an unknown alert (400 SchemaError)',
      body: { alerts: ['server_on_fire'] },
      status: 400,
      error: schemaError({ path: ['alerts', 0] }),
    },
    {
      name: 'an unknown field (400 SchemaError)',
      body: { alerts: [], role: 'owner' },
      status: 400,
      error: schemaError({ code: 'unrecognized_keys' }),
    },
    { name: 'a missing list (400 SchemaError)', body: {}, status: 400, error: schemaError({ path: ['alerts'] }) },
    {
      name: 'an alert listed twice (409 conflict)',
      body: { alerts: ['panic_mode_changed', 'panic_mode_changed'] },
      status: 409,
      error: { error: 'conflict', details: { reason: 'alert listed twice', alert: 'panic_mode_changed' } },
    },
  ];
  it.each(refusals)('refuses $name and changes nothing', async ({ body, status, error }) => {
    await put(admin, roleId, { alerts: [] });
    const auditBefore = (await auditOf(roleId)).length;
    const response = await put(admin, roleId, body);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual(error);
    expect(await stored(roleId)).toEqual([]);
    expect(await auditOf(roleId)).toHaveLength(auditBefore);
  });

  it('403 naming the read permission when the caller could not read the alert themselves; nothing stored', async () => {
    const roleWriter = await createUser(t.db, ['roles.write']);
    const response = await put(roleWriter, roleId, { alerts: ['panic_mode_changed'] });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: 'forbidden',
      details: { perm: 'ops.read | ops.panic', alert: 'panic_mode_changed' },
    });
    expect(await stored(roleId)).toEqual([]);
  });

  it('403 naming roles.write without it, 401 without a token, 404 for an unknown role: nothing stored', async () => {
    const reader = await createUser(t.db, ['roles.read', 'ops.read']);
    const forbidden = await put(reader, roleId, { alerts: ['panic_mode_changed'] });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: 'forbidden', details: { perm: 'roles.write' } });
    expect((await put(null, roleId, { alerts: ['panic_mode_changed'] })).json()).toEqual({ error: 'missing_token' });
    const unknownId = randomUUID();
    const unknown = await put(admin, unknownId, { alerts: ['panic_mode_changed'] });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found' });
    expect(await stored(roleId)).toEqual([]);
    expect(await stored(unknownId)).toEqual([]);
  });

  it('deleting a role drops its subscriptions', async () => {
    const doomed = (
      await t.db
        .insertInto('roles')
        .values({ key: `doomed-${randomUUID().slice(0, 8)}`, name: 'Doomed' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    expect((await put(admin, doomed, { alerts: ['panic_mode_changed'] })).statusCode).toBe(200);
    await t.db.deleteFrom('roles').where('id', '=', doomed).execute();
    expect(await stored(doomed)).toEqual([]);
  });
});
