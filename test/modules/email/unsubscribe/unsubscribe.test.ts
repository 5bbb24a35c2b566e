import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signUnsubscribeToken } from '../../../../src/modules/email/unsubscribe-token.js';
import { maskedAddress } from '../../../../src/modules/email/unsubscribe/pages.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { appInFrozenMinute } from '../../../helpers/frozen-minute.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';

/**
 * The unsubscribe link of marketing mail (`GET`/`POST /v1/public/email/unsubscribe`), RFC 8058
 * one-click as mail providers send it, and the staff suppression list.
 */

const URL_PATH = '/v1/public/email/unsubscribe';
const SUPPRESSIONS = '/v1/admin/email/suppressions';

let t: TestApp;
let editor: TestUser;
let reader: TestUser;
let outsider: TestUser;

/** Every public request from its own address, so the 30-per-minute limit only bites where tested. */
const freshIp = () =>
  `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const uniqueEmail = (name = 'player') => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const tokenFor = (email: string, messageId: string | null = null) =>
  signUnsubscribeToken(t.kernel.signingKey, { email, messageId });
const linkOf = (token: string) => `${URL_PATH}?token=${encodeURIComponent(token)}`;

const show = (token: string | undefined, ip = freshIp()) =>
  t.request({ method: 'GET', url: token === undefined ? URL_PATH : linkOf(token), remoteAddress: ip });

/** Exactly what a mail provider sends for RFC 8058 one-click. */
const oneClick = (token: string, ip = freshIp()) =>
  t.request({
    method: 'POST',
    url: linkOf(token),
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });

/** The page's button: an HTML form post with no fields. */
const buttonPost = (token: string, ip = freshIp()) =>
  t.request({
    method: 'POST',
    url: linkOf(token),
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });

const suppressionOf = (email: string) =>
  t.db.selectFrom('email_suppressions').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
const suppressionCount = async () =>
  (await t.db.selectFrom('email_suppressions').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;

function expectPage(response: LightMyRequestResponse, status: number) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.body).toMatch(/^<!doctype html>/);
  expect(response.body).toContain('<meta name="robots" content="noindex, nofollow">');
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

describe('GET: the page', () => {
  it('shows the address partly masked and a button posting the token back; it never unsubscribes', async () => {
    const email = uniqueEmail('jane.doe');
    const token = tokenFor(email, randomUUID());
    const response = await show(token);
    expectPage(response, 200);
    expect(response.body).toContain(`<strong>ja************@example.test</strong> will get no more marketing email`);
    expect(response.body).not.toContain(email);
    expect(response.body).toContain(
      `<form method="post" action="${URL_PATH}?token=${token}"><button type="submit">Unsubscribe</button></form>`,
    );
    expect(await suppressionOf(email)).toBeUndefined();
  });

  it('a missing, altered or foreign token is a 400 page that names no address', async () => {
    const email = uniqueEmail();
    const good = tokenFor(email);
    const [version, payload, signature] = good.split('.') as [string, string, string];
    const otherPayload = Buffer.from(JSON.stringify({ e: uniqueEmail('victim'), m: null })).toString('base64url');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    const tokens = [
      undefined,
      '',
      'garbage',
      `${version}.${payload}.${flipped}`,
      `${version}.${otherPayload}.${signature}`,
      signUnsubscribeToken('another-key-entirely-0123456789abcdef', { email, messageId: null }),
      `u2.${payload}.${signature}`,
    ];
    const pages = new Set<string>();
    for (const token of tokens) {
      const response = await show(token);
      expectPage(response, 400);
      expect(response.body).toContain('This unsubscribe link is not valid');
      expect(response.body).not.toContain('@');
      pages.add(response.body);
    }
    expect(pages.size).toBe(1);
    expect(await suppressionOf(email)).toBeUndefined();
  });
});

describe('POST: unsubscribing', () => {
  it('RFC 8058 one-click: 200 page, suppressed at once as unsubscribed/one_click with the message id', async () => {
    const email = uniqueEmail('Mixed.Case');
    const messageId = randomUUID();
    const response = await oneClick(tokenFor(email, messageId));
    expectPage(response, 200);
    expect(response.body).toContain('You are unsubscribed');
    expect(await suppressionOf(email)).toEqual({
      email: email.toLowerCase(),
      reason: 'unsubscribed',
      source: 'one_click',
      message_id: messageId,
      created_at: expect.any(Date),
    });
  });

  it('one-click sent as multipart/form-data counts the same', async () => {
    const email = uniqueEmail();
    const boundary = '----provider1234';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const response = await t.request({
      method: 'POST',
      url: linkOf(tokenFor(email)),
      remoteAddress: freshIp(),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expectPage(response, 200);
    expect(await suppressionOf(email)).toMatchObject({ reason: 'unsubscribed', source: 'one_click', message_id: null });
  });

  it("the page's button (an empty form, or no body at all) unsubscribes with source link", async () => {
    const email = uniqueEmail();
    expectPage(await buttonPost(tokenFor(email)), 200);
    expect(await suppressionOf(email)).toMatchObject({ reason: 'unsubscribed', source: 'link' });
    const bare = uniqueEmail();
    expectPage(await t.request({ method: 'POST', url: linkOf(tokenFor(bare)), remoteAddress: freshIp() }), 200);
    expect(await suppressionOf(bare)).toMatchObject({ source: 'link' });
  });

  it('is idempotent: a second time answers the same and changes nothing; an earlier reason stays', async () => {
    const email = uniqueEmail();
    const token = tokenFor(email, randomUUID());
    const first = await oneClick(token);
    const stored = await suppressionOf(email);
    const second = await oneClick(token);
    const viaButton = await buttonPost(tokenFor(email));
    expect([second.statusCode, second.body, viaButton.body]).toEqual([200, first.body, first.body]);
    expect(await suppressionOf(email)).toEqual(stored);

    const bounced = uniqueEmail();
    await t.db
      .insertInto('email_suppressions')
      .values({ email: bounced, reason: 'bounced', source: 'smtp', message_id: null })
      .execute();
    const known = await oneClick(tokenFor(bounced));
    expectPage(known, 200);
    expect(await suppressionOf(bounced)).toMatchObject({ reason: 'bounced', source: 'smtp' });
  });

  it('other bodies: a JSON object counts like a form (answered in JSON), a JSON array is a 400 SchemaError, a large form 413', async () => {
    const email = uniqueEmail();
    const json = await t.request({
      method: 'POST',
      url: linkOf(tokenFor(email)),
      remoteAddress: freshIp(),
      payload: { 'List-Unsubscribe': 'One-Click' },
    });
    expect({ status: json.statusCode, body: json.json() }).toEqual({
      status: 200,
      body: { email: maskedAddress(email), unsubscribed: true },
    });
    expect(await suppressionOf(email)).toMatchObject({ source: 'one_click' });

    const other = uniqueEmail();
    const array = await t.request({
      method: 'POST',
      url: linkOf(tokenFor(other)),
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/json' },
      payload: '[1]',
    });
    expect({ status: array.statusCode, body: array.json() }).toEqual({
      status: 400,
      body: expect.objectContaining({ success: false, error: expect.objectContaining({ name: 'SchemaError' }) }),
    });
    const large = await t.request({
      method: 'POST',
      url: linkOf(tokenFor(other)),
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `List-Unsubscribe=One-Click&pad=${'x'.repeat(5_000)}`,
    });
    expect({ status: large.statusCode, body: large.json() }).toEqual({
      status: 413,
      body: { error: 'payload_too_large' },
    });
    expect(await suppressionOf(other)).toBeUndefined();
  });

  it('a forged token is a 400 page and suppresses nothing', async () => {
    const victim = uniqueEmail('victim');
    const payload = Buffer.from(JSON.stringify({ e: victim, m: null })).toString('base64url');
    const before = await suppressionCount();
    for (const token of [
      `u1.${payload}.${'A'.repeat(43)}`,
      'u1..',
      signUnsubscribeToken('not-this-service-key-0123456789abcdef', { email: victim, messageId: null }),
    ]) {
      const response = await oneClick(token);
      expectPage(response, 400);
      expect(response.body).toContain('This unsubscribe link is not valid');
    }
    const missing = await t.request({
      method: 'POST',
      url: URL_PATH,
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expectPage(missing, 400);
    expect(await suppressionCount()).toBe(before);
  });

  it('takes effect for the audience counts at once', async () => {
    const email = uniqueEmail();
    const created = await t.request({
      method: 'POST',
      url: '/v1/admin/email/audiences',
      token: editor.token,
      payload: { name: 'Newsletter' },
    });
    const id = created.json().id;
    await t.request({
      method: 'PUT',
      url: `/v1/admin/email/audiences/${id}/members`,
      token: editor.token,
      payload: { members: [email] },
    });
    const count = async () =>
      (
        await t.request({ method: 'GET', url: `/v1/admin/email/audiences/${id}/preview-count`, token: reader.token })
      ).json();
    expect(await count()).toMatchObject({ total: 1, mailable: 1 });
    await oneClick(tokenFor(email));
    expect(await count()).toMatchObject({ total: 1, mailable: 0, suppressed: 1 });
  });
});

describe('API clients get JSON, browsers and mail providers the pages', () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
  const garbage = ['', 'garbage', 'u1..'];

  function expectJson(response: LightMyRequestResponse, status: number, body: unknown) {
    expect({ status: response.statusCode, body: response.json() }, response.body).toEqual({ status, body });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(requestIdOf(response)).toMatch(/^[0-9a-f-]{36}$/);
  }

  it('POST with a JSON body and no token, or a bad one: 400 `{ error: "invalid_link" }`, nothing suppressed (was a 400 HTML page)', async () => {
    const before = await suppressionCount();
    expectJson(await t.request({ method: 'POST', url: URL_PATH, remoteAddress: freshIp(), payload: {} }), 400, {
      error: 'invalid_link',
    });
    expectJson(
      await t.request({
        method: 'POST',
        url: URL_PATH,
        remoteAddress: freshIp(),
        headers: { 'content-type': 'application/json' },
        payload: '{"List-Unsubscribe":"One-Click"}',
      }),
      400,
      { error: 'invalid_link' },
    );
    for (const token of garbage) {
      expectJson(
        await t.request({
          method: 'POST',
          url: linkOf(token),
          remoteAddress: freshIp(),
          payload: { 'List-Unsubscribe': 'One-Click' },
        }),
        400,
        { error: 'invalid_link' },
      );
    }
    expect(await suppressionCount()).toBe(before);
  });

  it('POST a form with `Accept: application/json`: JSON answers; the same form from a browser or a mail provider: the pages', async () => {
    const email = uniqueEmail('api.client');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const asApi = await t.request({
      method: 'POST',
      url: linkOf(tokenFor(email)),
      remoteAddress: freshIp(),
      headers: { ...form, accept: 'application/json' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expectJson(asApi, 200, { email: maskedAddress(email), unsubscribed: true });
    expect(await suppressionOf(email)).toMatchObject({ reason: 'unsubscribed', source: 'one_click' });
    expectJson(
      await t.request({
        method: 'POST',
        url: URL_PATH,
        remoteAddress: freshIp(),
        headers: { ...form, accept: 'application/json' },
        payload: '',
      }),
      400,
      { error: 'invalid_link' },
    );
    for (const accept of [BROWSER, '*/*', 'application/json;q=0.5, text/html', 'text/plain']) {
      expectPage(
        await t.request({
          method: 'POST',
          url: linkOf(tokenFor(uniqueEmail())),
          remoteAddress: freshIp(),
          headers: { ...form, accept },
          payload: '',
        }),
        200,
      );
      expectPage(
        await t.request({
          method: 'POST',
          url: URL_PATH,
          remoteAddress: freshIp(),
          headers: { ...form, accept },
          payload: '',
        }),
        400,
      );
    }
  });

  it('GET with `Accept: application/json`: `{ email }` masked, or 400 `invalid_link`; it never unsubscribes; a browser still gets the page', async () => {
    const email = uniqueEmail('jane.doe');
    const token = tokenFor(email);
    for (const accept of ['application/json', 'text/html;q=0.5, application/json', 'application/problem+json']) {
      expectJson(
        await t.request({ method: 'GET', url: linkOf(token), remoteAddress: freshIp(), headers: { accept } }),
        200,
        { email: maskedAddress(email) },
      );
      expectJson(
        await t.request({ method: 'GET', url: URL_PATH, remoteAddress: freshIp(), headers: { accept } }),
        400,
        { error: 'invalid_link' },
      );
      for (const bad of garbage)
        expectJson(
          await t.request({ method: 'GET', url: linkOf(bad), remoteAddress: freshIp(), headers: { accept } }),
          400,
          { error: 'invalid_link' },
        );
    }
    expect(await suppressionOf(email)).toBeUndefined();
    expectPage(
      await t.request({ method: 'GET', url: linkOf(token), remoteAddress: freshIp(), headers: { accept: BROWSER } }),
      200,
    );
    expectPage(
      await t.request({ method: 'GET', url: URL_PATH, remoteAddress: freshIp(), headers: { accept: BROWSER } }),
      400,
    );
    // A token holding what no link has is the SchemaError, as before, whoever asks.
    const nul = await t.request({
      method: 'GET',
      url: `${URL_PATH}?token=a%00b`,
      remoteAddress: freshIp(),
      headers: { accept: 'application/json' },
    });
    expect({ status: nul.statusCode, name: nul.json().error.name }).toEqual({ status: 400, name: 'SchemaError' });
  });
});

describe('rate limit: 30 per 60 s per IP, GET and POST together', () => {
  const { app, frozenAt } = appInFrozenMinute();

  const signed = (email: string) => linkOf(signUnsubscribeToken(app().kernel.signingKey, { email, messageId: null }));
  const get = (email: string, ip: string) => app().request({ method: 'GET', url: signed(email), remoteAddress: ip });
  const post = (email: string, ip: string) =>
    app().request({
      method: 'POST',
      url: signed(email),
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
  const stored = (email: string) =>
    app().db.selectFrom('email_suppressions').select('email').where('email', '=', email).executeTakeFirst();

  it('the 31st request from one address is 429 rate_limited and does nothing; another address still passes', async () => {
    const ip = '198.51.100.77';
    const email = uniqueEmail();
    for (let i = 0; i < 15; i += 1) expect((await get(email, ip)).statusCode).toBe(200);
    for (let i = 0; i < 15; i += 1) expect((await post(uniqueEmail(), ip)).statusCode).toBe(200);
    const refusedEmail = uniqueEmail();
    for (const response of [await post(refusedEmail, ip), await get(email, ip)]) {
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 429,
        body: { error: 'rate_limited' },
      });
      expect(response.headers['retry-after']).toBe('50');
    }
    expect(await stored(refusedEmail)).toBeUndefined();
    expect((await post(refusedEmail, '198.51.100.78')).statusCode).toBe(200);
    expect(await stored(refusedEmail)).toEqual({ email: refusedEmail });
    // The next window starts from zero.
    vi.setSystemTime(frozenAt + 50_000);
    expect((await get(email, ip)).statusCode).toBe(200);
  });
});

describe('staff: the suppression list', () => {
  it('POST adds an address (lowercased): 201 with the row, audited; again 200 as it was, not audited', async () => {
    const email = uniqueEmail('Staff.Added');
    const response = await t.request({
      method: 'POST',
      url: SUPPRESSIONS,
      token: editor.token,
      payload: { email: ` ${email} `, reason: 'complained', note: 'Complaint forwarded by support' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const row = { email: email.toLowerCase(), reason: 'complained', source: 'staff', message_id: null };
    expect(response.json()).toEqual({ ...row, created_at: expect.any(String) });
    expect(await suppressionOf(email)).toEqual({ ...row, created_at: expect.any(Date) });
    const requestId = requestIdOf(response);
    expect(await auditOf(t.db, requestId)).toEqual([
      {
        id: expect.any(String),
        created_at: expect.any(Date),
        actor_id: editor.id,
        action: 'email.suppression.add',
        target_type: 'email_suppression',
        target_id: email.toLowerCase(),
        request_id: requestId,
        ip: '127.0.0.1',
        user_agent: 'lightMyRequest',
        reason: 'Complaint forwarded by support',
        summary: { after: { email: email.toLowerCase(), reason: 'complained' } },
      },
    ]);

    const again = await t.request({
      method: 'POST',
      url: SUPPRESSIONS,
      token: editor.token,
      payload: { email: email.toUpperCase() },
    });
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 200, body: response.json() });
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
    const defaulted = uniqueEmail();
    expect(
      (
        await t.request({ method: 'POST', url: SUPPRESSIONS, token: editor.token, payload: { email: defaulted } })
      ).json(),
    ).toMatchObject({ reason: 'manual', source: 'staff' });
  });

  it.each([
    { name: 'an invalid address', body: { email: 'nope' }, issue: { path: ['email'], format: 'email' } },
    {
      name: 'reason unsubscribed (only the person can)',
      body: { email: 'a@example.test', reason: 'unsubscribed' },
      issue: { path: ['reason'], code: 'invalid_value' },
    },
    { name: 'an unknown field', body: { email: 'a@example.test', source: 'x' }, issue: { code: 'unrecognized_keys' } },
  ])('POST refuses $name with 400 SchemaError', async ({ body, issue }) => {
    const before = await suppressionCount();
    const response = await t.request({ method: 'POST', url: SUPPRESSIONS, token: editor.token, payload: body });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: schemaError(issue) });
    expect(await suppressionCount()).toBe(before);
  });

  it('DELETE lets mail go again: 204, audited with the row and reason; any case; then 404', async () => {
    const email = uniqueEmail();
    await oneClick(tokenFor(email));
    const response = await t.request({
      method: 'DELETE',
      url: `${SUPPRESSIONS}/${encodeURIComponent(email.toUpperCase())}?reason=${encodeURIComponent('Asked to hear from us again')}`,
      token: editor.token,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(await suppressionOf(email)).toBeUndefined();
    const [audit] = await auditOf(t.db, requestIdOf(response));
    expect(audit).toMatchObject({
      action: 'email.suppression.remove',
      target_type: 'email_suppression',
      target_id: email,
      actor_id: editor.id,
      reason: 'Asked to hear from us again',
      summary: { before: { email, reason: 'unsubscribed', source: 'one_click', created_at: expect.any(String) } },
    });
    const again = await t.request({
      method: 'DELETE',
      url: `${SUPPRESSIONS}/${encodeURIComponent(email)}`,
      token: editor.token,
    });
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
  });

  it('GET lists newest first with a total; q and reason filter', async () => {
    const tag = randomUUID().slice(0, 8);
    for (const [name, reason] of [
      ['one', 'manual'],
      ['two', 'bounced'],
      ['three', 'manual'],
    ] as const) {
      await t.request({
        method: 'POST',
        url: SUPPRESSIONS,
        token: editor.token,
        payload: { email: `${name}-${tag}@example.test`, reason },
      });
    }
    const all = await t.request({ method: 'GET', url: `${SUPPRESSIONS}?q=${tag.toUpperCase()}`, token: reader.token });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().meta).toEqual({ page: 1, per_page: 25, total: 3 });
    expect(all.json().data.map((x: { email: string }) => x.email)).toEqual([
      `three-${tag}@example.test`,
      `two-${tag}@example.test`,
      `one-${tag}@example.test`,
    ]);
    const manual = await t.request({
      method: 'GET',
      url: `${SUPPRESSIONS}?q=${tag}&reason=manual&sort=email:asc&per_page=1&page=2`,
      token: reader.token,
    });
    expect(manual.json()).toEqual({
      data: [expect.objectContaining({ email: `three-${tag}@example.test`, reason: 'manual' })],
      meta: { page: 2, per_page: 1, total: 2 },
    });
  });

  it('401 without a token; 403 naming the permission without it', async () => {
    const email = uniqueEmail();
    await oneClick(tokenFor(email));
    const cases = [
      { method: 'GET' as const, url: SUPPRESSIONS, perm: 'email.read', caller: outsider },
      {
        method: 'POST' as const,
        url: SUPPRESSIONS,
        perm: 'email.write',
        caller: reader,
        payload: { email: uniqueEmail() },
      },
      {
        method: 'DELETE' as const,
        url: `${SUPPRESSIONS}/${encodeURIComponent(email)}`,
        perm: 'email.write',
        caller: reader,
      },
    ];
    for (const { method, url, perm, caller, payload } of cases) {
      const before = await suppressionCount();
      const anonymous = await t.request({ method, url, ...(payload ? { payload } : {}) });
      expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
        status: 401,
        body: { error: 'missing_token' },
      });
      const refused = await t.request({ method, url, token: caller.token, ...(payload ? { payload } : {}) });
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { perm } },
      });
      expect(await suppressionCount()).toBe(before);
    }
    expect(await suppressionOf(email)).toBeDefined();
  });
});
