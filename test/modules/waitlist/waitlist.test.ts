import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { appInFrozenMinute } from '../../helpers/frozen-minute.js';
import { schemaError } from '../../helpers/expectations.js';

/**
 * `POST /v1/public/waitlist` (idempotent, the same answer for a known and a new address, 5 per
 * minute per IP) and the staff list marketing imports from.
 */

let t: TestApp;
let reader: TestUser;
let outsider: TestUser;

const WAITLIST = '/v1/public/waitlist';
const ADMIN = '/v1/admin/email/waitlist';
/** Every signup from its own address, so the 5-per-minute limit only bites where tested. */
const freshIp = () =>
  `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const uniqueEmail = (name = 'fan') => `${name}-${randomUUID().slice(0, 8)}@example.test`;

const join = (payload: unknown, ip = freshIp(), app = t) =>
  app.request({ method: 'POST', url: WAITLIST, payload: payload as object, remoteAddress: ip });
const signupOf = (email: string) =>
  t.db.selectFrom('waitlist_signups').selectAll().where('email', '=', email).executeTakeFirst();
const signupCount = async () =>
  (await t.db.selectFrom('waitlist_signups').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUser(t.db, ['email.read']);
  outsider = await createUser(t.db, ['users.read']);
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/public/waitlist', () => {
  it('stores the address lowercased with source, referrer and IP: 202 {ok}', async () => {
    const email = uniqueEmail('New.Fan');
    const response = await join(
      { email: ` ${email.toUpperCase()} `, source: 'landing-hero', referrer: 'https://news.example/post' },
      '203.0.113.9',
    );
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 202, body: { ok: true } });
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
    expect(await signupOf(email.toLowerCase())).toEqual({
      email: email.toLowerCase(),
      source: 'landing-hero',
      referrer: 'https://news.example/post',
      ip: '203.0.113.9',
      created_at: expect.any(Date),
    });
    const bare = uniqueEmail();
    expect((await join({ email: bare })).statusCode).toBe(202);
    expect(await signupOf(bare)).toMatchObject({ source: null, referrer: null });
  });

  it('a known address gets exactly the same answer and changes nothing', async () => {
    const email = uniqueEmail();
    const first = await join({ email, source: 'first' });
    const stored = await signupOf(email);
    const again = await join({ email: email.toUpperCase(), source: 'second', referrer: 'elsewhere' });
    const fresh = await join({ email: uniqueEmail(), source: 'first' });
    const shape = (r: typeof first) => ({ status: r.statusCode, body: r.body, type: r.headers['content-type'] });
    expect(shape(again)).toEqual(shape(first));
    expect(shape(fresh)).toEqual(shape(first));
    expect(await signupOf(email)).toEqual(stored);
  });

  it.each([
    { name: 'an invalid address', body: { email: 'not-an-address' }, issue: { path: ['email'], format: 'email' } },
    { name: 'no address', body: { source: 'x' }, issue: { path: ['email'], code: 'invalid_type' } },
    {
      name: 'a source over 100',
      body: { email: 'a@example.test', source: 's'.repeat(101) },
      issue: { path: ['source'], code: 'too_big', maximum: 100 },
    },
    {
      name: 'a referrer over 500',
      body: { email: 'a@example.test', referrer: 'r'.repeat(501) },
      issue: { path: ['referrer'], code: 'too_big', maximum: 500 },
    },
    { name: 'an unknown field', body: { email: 'a@example.test', name: 'Ann' }, issue: { code: 'unrecognized_keys' } },
  ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
    const before = await signupCount();
    const response = await join(body);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: schemaError(issue) });
    expect(await signupCount()).toBe(before);
  });
});

describe('rate limit: 5 per 60 s per IP', () => {
  const { app } = appInFrozenMinute();

  it('the 6th signup from one address is 429 rate_limited and stores nothing; another address passes', async () => {
    const ip = '198.51.100.20';
    for (let i = 0; i < 5; i += 1) expect((await join({ email: uniqueEmail() }, ip, app())).statusCode).toBe(202);
    const refused = uniqueEmail();
    const response = await join({ email: refused }, ip, app());
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 429,
      body: { error: 'rate_limited' },
    });
    expect(response.headers['retry-after']).toBe('50');
    expect(
      await app().db.selectFrom('waitlist_signups').select('email').where('email', '=', refused).executeTakeFirst(),
    ).toBeUndefined();
    expect((await join({ email: refused }, '198.51.100.21', app())).statusCode).toBe(202);
  });
});

describe('GET /v1/admin/email/waitlist', () => {
  it('pages newest first with a total; q and source filter; sorts by email', async () => {
    const tag = randomUUID().slice(0, 8);
    for (const [name, source] of [
      ['b', 'hero'],
      ['a', 'footer'],
      ['c', 'hero'],
    ] as const) {
      expect((await join({ email: `${name}-${tag}@example.test`, source })).statusCode).toBe(202);
    }
    // Quick joins once shared an instant on the embedded database (the email then broke the tie,
    // and the test failed); a second apart, the order is the one they joined in.
    for (const [index, name] of ['b', 'a', 'c'].entries()) {
      await t.db
        .updateTable('waitlist_signups')
        .set({ created_at: new Date(Date.now() - (3 - index) * 1_000) })
        .where('email', '=', `${name}-${tag}@example.test`)
        .execute();
    }
    const all = await t.request({ method: 'GET', url: `${ADMIN}?q=${tag.toUpperCase()}`, token: reader.token });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().meta).toEqual({ page: 1, per_page: 25, total: 3 });
    expect(all.json().data.map((x: { email: string }) => x.email)).toEqual([
      `c-${tag}@example.test`,
      `a-${tag}@example.test`,
      `b-${tag}@example.test`,
    ]);
    expect(all.json().data[0]).toEqual({
      email: `c-${tag}@example.test`,
      source: 'hero',
      referrer: null,
      ip: expect.any(String),
      created_at: expect.any(String),
    });
    const hero = await t.request({
      method: 'GET',
      url: `${ADMIN}?q=${tag}&source=hero&sort=email:asc&per_page=1&page=2`,
      token: reader.token,
    });
    expect(hero.json()).toEqual({
      data: [expect.objectContaining({ email: `c-${tag}@example.test` })],
      meta: { page: 2, per_page: 1, total: 2 },
    });
    expect((await t.request({ method: 'GET', url: `${ADMIN}?sort=ip:asc`, token: reader.token })).statusCode).toBe(400);
  });

  it('401 without a token; 403 naming email.read without it', async () => {
    const anonymous = await t.request({ method: 'GET', url: ADMIN });
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    const refused = await t.request({ method: 'GET', url: ADMIN, token: outsider.token });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'email.read' } },
    });
  });
});
