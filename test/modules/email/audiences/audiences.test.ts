import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';

/**
 * Email audiences around operation 9: create, list, get, edit, delete, the member list with
 * each member's standing, removing one member, and the preview count of who is mailable now.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const BASE = '/v1/admin/email/audiences';
const USER_AGENT = 'audiences-test/1.0';

let t: TestApp;
let editor: TestUser;
let reader: TestUser;
let outsider: TestUser;

function call(
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
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function ok(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return status === 204 ? undefined : response.json();
}

async function newAudience(name = 'Players', members: unknown[] = []): Promise<string> {
  const { id } = await ok(await call(editor, 'POST', BASE, { name }), 201);
  if (members.length > 0) await ok(await call(editor, 'PUT', `${BASE}/${id}/members`, { members }));
  return id;
}

const audienceRow = (id: string) =>
  t.db.selectFrom('email_audiences').selectAll().where('id', '=', id).executeTakeFirst();
const auditCount = async () =>
  (await t.db.selectFrom('audit_log').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;

function auditRow(requestId: string, fields: { action: string; target_id: string; summary: unknown }) {
  return {
    id: expect.any(String),
    created_at: expect.any(Date),
    actor_id: editor.id,
    action: fields.action,
    target_type: 'email_audience',
    target_id: fields.target_id,
    request_id: requestId,
    ip: '127.0.0.1',
    user_agent: USER_AGENT,
    reason: null,
    summary: fields.summary,
  };
}

beforeAll(async () => {
  t = await startTestApp();
  editor = await createUser(t.db, ['email.write', 'email.read']);
  reader = await createUser(t.db, ['email.read']);
  outsider = await createUser(t.db, ['users.read']);
});
afterAll(async () => {
  await t.close();
});

describe('create, get, edit, delete', () => {
  it('POST creates an empty audience: 201 with the audience, stored and audited', async () => {
    const response = await call(editor, 'POST', BASE, {
      name: '  Beta testers ',
      description: 'Signed up for the beta',
    });
    const body = await ok(response, 201);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Beta testers',
      description: 'Signed up for the beta',
      member_count: 0,
      created_by: editor.id,
      updated_by: editor.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await audienceRow(body.id)).toMatchObject({
      name: 'Beta testers',
      description: 'Signed up for the beta',
      created_by: editor.id,
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(requestIdOf(response), {
        action: 'email.audience.create',
        target_id: body.id,
        summary: { after: { name: 'Beta testers', description: 'Signed up for the beta' } },
      }),
    ]);
  });

  it.each([
    { name: 'an empty name', body: { name: '  ' }, issue: { path: ['name'], code: 'too_small' } },
    {
      name: 'a name over 200',
      body: { name: 'n'.repeat(201) },
      issue: { path: ['name'], code: 'too_big', maximum: 200 },
    },
    {
      name: 'a description over 500',
      body: { name: 'x', description: 'd'.repeat(501) },
      issue: { path: ['description'], code: 'too_big', maximum: 500 },
    },
    { name: 'an unknown field', body: { name: 'x', members: [] }, issue: { code: 'unrecognized_keys' } },
  ])('POST refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
    const before = await auditCount();
    const response = await call(editor, 'POST', BASE, body);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: schemaError(issue) });
    expect(await auditCount()).toBe(before);
  });

  it('GET one: the audience with its member count; 404 not_found; 400 for a malformed id', async () => {
    const id = await newAudience('Counted', ['a@example.test', 'b@example.test']);
    expect(await ok(await call(reader, 'GET', `${BASE}/${id}`))).toMatchObject({
      id,
      name: 'Counted',
      description: null,
      member_count: 2,
    });
    const missing = await call(reader, 'GET', `${BASE}/${randomUUID()}`);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect((await call(reader, 'GET', `${BASE}/nope`)).json()).toEqual(schemaError({ path: ['id'] }));
  });

  it('PUT replaces name and description (omitted clears it), audits before and after; no change writes nothing', async () => {
    const { id } = await ok(await call(editor, 'POST', BASE, { name: 'Old', description: 'old text' }), 201);
    const response = await call(editor, 'PUT', `${BASE}/${id}`, { name: 'New' });
    expect(await ok(response)).toMatchObject({ id, name: 'New', description: null, updated_by: editor.id });
    expect(await audienceRow(id)).toMatchObject({ name: 'New', description: null });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(requestIdOf(response), {
        action: 'email.audience.update',
        target_id: id,
        summary: { before: { name: 'Old', description: 'old text' }, after: { name: 'New', description: null } },
      }),
    ]);

    const row = await audienceRow(id);
    const same = await call(editor, 'PUT', `${BASE}/${id}`, { name: 'New', description: null });
    expect(await ok(same)).toMatchObject({ name: 'New' });
    expect(await auditOf(t.db, requestIdOf(same))).toEqual([]);
    expect(await audienceRow(id)).toEqual(row);

    const missing = await call(editor, 'PUT', `${BASE}/${randomUUID()}`, { name: 'x' });
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect(await auditOf(t.db, requestIdOf(missing))).toEqual([]);
  });

  it('DELETE removes the audience and its members: 204, audited with the member count; then 404', async () => {
    const id = await newAudience('Doomed', ['a@example.test', 'b@example.test', 'c@example.test']);
    const response = await call(editor, 'DELETE', `${BASE}/${id}`);
    await ok(response, 204);
    expect(response.body).toBe('');
    expect(await audienceRow(id)).toBeUndefined();
    expect(
      await t.db.selectFrom('email_audience_members').select('id').where('audience_id', '=', id).execute(),
    ).toEqual([]);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(requestIdOf(response), {
        action: 'email.audience.delete',
        target_id: id,
        summary: { before: { name: 'Doomed', description: null, member_count: 3 } },
      }),
    ]);
    const again = await call(editor, 'DELETE', `${BASE}/${id}`);
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
  });

  it.each([
    { method: 'GET' as const, path: '', perm: 'email.read' },
    { method: 'POST' as const, path: '', perm: 'email.write', body: { name: 'x' } },
    { method: 'GET' as const, path: '/ID', perm: 'email.read' },
    { method: 'PUT' as const, path: '/ID', perm: 'email.write', body: { name: 'x' } },
    { method: 'DELETE' as const, path: '/ID', perm: 'email.write' },
    { method: 'GET' as const, path: '/ID/members', perm: 'email.read' },
    { method: 'DELETE' as const, path: `/ID/members/${randomUUID()}`, perm: 'email.write' },
    { method: 'GET' as const, path: '/ID/preview-count', perm: 'email.read' },
  ])('$method $path: 401 without a token, 403 naming $perm without it', async ({ method, path, perm, body }) => {
    const id = await newAudience('Guarded', ['a@example.test']);
    const target = `${BASE}${path.replace('ID', id)}`;
    const before = { row: await audienceRow(id), audit: await auditCount() };
    const anonymous = await call(null, method, target, body);
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    const caller = perm === 'email.write' ? reader : outsider;
    const refused = await call(caller, method, target, body);
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm } },
    });
    expect({ row: await audienceRow(id), audit: await auditCount() }).toEqual(before);
  });
});

describe('GET /v1/admin/email/audiences', () => {
  it('pages with a total, filters by name (case-insensitive, literal), counts members, sorts', async () => {
    const tag = randomUUID().slice(0, 6);
    const a = await newAudience(`Zeta ${tag}`, ['a@example.test']);
    const b = await newAudience(`alpha ${tag}`, ['a@example.test', 'b@example.test']);
    const c = await newAudience(`Mid_${tag}%`);
    const byName = await ok(await call(reader, 'GET', `${BASE}?q=${tag.toUpperCase()}&sort=name:asc&per_page=2`));
    expect(byName.meta).toEqual({ page: 1, per_page: 2, total: 3 });
    expect(byName.data.map((x: { id: string; member_count: number }) => [x.id, x.member_count])).toEqual([
      [b, 2],
      [c, 0],
    ]);
    const second = await ok(await call(reader, 'GET', `${BASE}?q=${tag}&sort=name:asc&per_page=2&page=2`));
    expect(second.data.map((x: { id: string }) => x.id)).toEqual([a]);
    // `_` and `%` match themselves only.
    expect(
      (await ok(await call(reader, 'GET', `${BASE}?q=${encodeURIComponent(`_${tag}%`)}`))).data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([c]);
    // Newest first by default.
    const newest = await ok(await call(reader, 'GET', `${BASE}?q=${tag}`));
    expect(newest.data.map((x: { id: string }) => x.id)).toEqual([c, b, a]);
    expect((await call(reader, 'GET', `${BASE}?sort=member_count:asc`)).statusCode).toBe(400);
  });
});

describe('members and the preview count', () => {
  /** An audience whose members stand every way a member can. */
  async function mixedAudience() {
    const active = await createUser(t.db, [], { email: `active-${randomUUID().slice(0, 6)}@example.test` });
    const banned = await createUser(t.db, [], {
      email: `banned-${randomUUID().slice(0, 6)}@example.test`,
      status: 'banned',
    });
    const deleted = await createUser(t.db, [], {
      email: `deleted-${randomUUID().slice(0, 6)}@example.test`,
      status: 'deleted',
    });
    const suppressed = `suppressed-${randomUUID().slice(0, 6)}@example.test`;
    const both = await createUser(t.db, [], {
      email: `both-${randomUUID().slice(0, 6)}@example.test`,
      status: 'deleted',
    });
    const plain = `plain-${randomUUID().slice(0, 6)}@example.test`;
    await t.db
      .insertInto('email_suppressions')
      .values([
        { email: suppressed, reason: 'bounced', source: 'smtp', message_id: null },
        { email: both.email, reason: 'unsubscribed', source: 'link', message_id: null },
      ])
      .execute();
    const id = await newAudience('Mixed', [
      { user_id: active.id },
      { user_id: banned.id },
      deleted.email,
      suppressed,
      { user_id: both.id },
      plain,
    ]);
    return { id, active, banned, deleted, suppressed, both, plain };
  }

  it('preview-count: total, mailable, suppressed, deleted_users (banned included); an unsubscribe counts at once', async () => {
    const { id, plain } = await mixedAudience();
    expect(await ok(await call(reader, 'GET', `${BASE}/${id}/preview-count`))).toEqual({
      total: 6,
      mailable: 2,
      suppressed: 2,
      deleted_users: 3,
    });
    await t.db
      .insertInto('email_suppressions')
      .values({ email: plain, reason: 'unsubscribed', source: 'one_click', message_id: null })
      .execute();
    expect(await ok(await call(reader, 'GET', `${BASE}/${id}/preview-count`))).toEqual({
      total: 6,
      mailable: 1,
      suppressed: 3,
      deleted_users: 3,
    });
    const empty = await newAudience('Empty');
    expect(await ok(await call(reader, 'GET', `${BASE}/${empty}/preview-count`))).toEqual({
      total: 0,
      mailable: 0,
      suppressed: 0,
      deleted_users: 0,
    });
    const missing = await call(reader, 'GET', `${BASE}/${randomUUID()}/preview-count`);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
  });

  it('GET members: each with its standing; filters by address and mailable; pages with a total', async () => {
    const m = await mixedAudience();
    const page = await ok(await call(reader, 'GET', `${BASE}/${m.id}/members?per_page=100`));
    expect(page.meta).toEqual({ page: 1, per_page: 100, total: 6 });
    const byEmail = Object.fromEntries(page.data.map((x: Record<string, unknown>) => [x.email, x]));
    expect(byEmail[m.active.email]).toEqual({
      id: expect.any(String),
      email: m.active.email,
      user_id: m.active.id,
      user_status: 'active',
      suppression_reason: null,
      mailable: true,
      created_at: expect.any(String),
    });
    expect(byEmail[m.banned.email]).toMatchObject({
      user_id: m.banned.id,
      user_status: 'banned',
      suppression_reason: null,
      mailable: false,
    });
    // An address given alone is linked to its (deleted) account.
    expect(byEmail[m.deleted.email]).toMatchObject({ user_id: m.deleted.id, user_status: 'deleted', mailable: false });
    expect(byEmail[m.suppressed]).toMatchObject({
      user_id: null,
      user_status: null,
      suppression_reason: 'bounced',
      mailable: false,
    });
    expect(byEmail[m.both.email]).toMatchObject({
      user_status: 'deleted',
      suppression_reason: 'unsubscribed',
      mailable: false,
    });
    expect(byEmail[m.plain]).toMatchObject({
      user_id: null,
      user_status: null,
      suppression_reason: null,
      mailable: true,
    });
    expect(page.data.map((x: { email: string }) => x.email)).toEqual(Object.keys(byEmail).sort());

    const mailable = await ok(await call(reader, 'GET', `${BASE}/${m.id}/members?mailable=true`));
    expect(mailable.data.map((x: { email: string }) => x.email).sort()).toEqual([m.active.email, m.plain].sort());
    expect(mailable.meta.total).toBe(2);
    expect((await ok(await call(reader, 'GET', `${BASE}/${m.id}/members?mailable=false`))).meta.total).toBe(4);
    const found = await ok(
      await call(reader, 'GET', `${BASE}/${m.id}/members?q=${encodeURIComponent(m.plain.slice(0, 12).toUpperCase())}`),
    );
    expect(found.data.map((x: { email: string }) => x.email)).toEqual([m.plain]);
    const paged = await ok(await call(reader, 'GET', `${BASE}/${m.id}/members?per_page=4&page=2&sort=email:desc`));
    expect(paged.data.map((x: { email: string }) => x.email)).toEqual(Object.keys(byEmail).sort().reverse().slice(4));

    const missing = await call(reader, 'GET', `${BASE}/${randomUUID()}/members`);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect((await call(reader, 'GET', `${BASE}/${m.id}/members?mailable=yes`)).statusCode).toBe(400);
  });

  it('a hard-deleted account leaves every audience with its address', async () => {
    const gone = await createUser(t.db, [], { email: `gone-${randomUUID().slice(0, 6)}@example.test` });
    const id = await newAudience('Cascade', [{ user_id: gone.id }, 'stays@example.test']);
    await t.db.deleteFrom('user_roles').where('user_id', '=', gone.id).execute();
    await t.db.deleteFrom('users').where('id', '=', gone.id).execute();
    expect(await ok(await call(reader, 'GET', `${BASE}/${id}/preview-count`))).toEqual({
      total: 1,
      mailable: 1,
      suppressed: 0,
      deleted_users: 0,
    });
  });

  it('DELETE one member: 204, gone, audited with its address; 404 for a member of another audience or none', async () => {
    const id = await newAudience('Trim', ['keep@example.test', 'drop@example.test']);
    const other = await newAudience('Other', ['else@example.test']);
    const members = await t.db
      .selectFrom('email_audience_members')
      .select(['id', 'email', 'audience_id'])
      .where('audience_id', 'in', [id, other])
      .orderBy('email')
      .execute();
    const drop = members.find((x) => x.email === 'drop@example.test')!;
    const elsewhere = members.find((x) => x.audience_id === other)!;

    const response = await call(editor, 'DELETE', `${BASE}/${id}/members/${drop.id}`);
    await ok(response, 204);
    expect(
      (await t.db.selectFrom('email_audience_members').select('email').where('audience_id', '=', id).execute()).map(
        (x) => x.email,
      ),
    ).toEqual(['keep@example.test']);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(requestIdOf(response), {
        action: 'email.audience.member.remove',
        target_id: id,
        summary: { before: { member_id: drop.id, email: 'drop@example.test', user_id: null } },
      }),
    ]);

    for (const path of [
      `${id}/members/${drop.id}`,
      `${id}/members/${elsewhere.id}`,
      `${randomUUID()}/members/${elsewhere.id}`,
    ]) {
      const before = await auditCount();
      const refused = await call(editor, 'DELETE', `${BASE}/${path}`);
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 404,
        body: { error: 'not_found' },
      });
      expect(await auditCount()).toBe(before);
    }
    expect(
      await t.db.selectFrom('email_audience_members').select('id').where('id', '=', elsewhere.id).executeTakeFirst(),
    ).toEqual({ id: elsewhere.id });
  });
});
