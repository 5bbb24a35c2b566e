import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import type { TestDatabase } from '../../helpers/database.js';
import { signUnsubscribeToken } from '../../../src/modules/email/unsubscribe-token.js';
import { signToken } from '../../helpers/tokens.js';

/**
 * The caller's own profile: GET /v1/me shows it, PATCH /v1/me changes the player's own fields
 * only, and the marketing preference is the suppression list an unsubscribe link also writes.
 */

let t: TestApp & { testDatabase: TestDatabase | null };

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const me = (user: TestUser) => t.request({ method: 'GET', url: '/v1/me', token: user.token });
const patch = (user: TestUser, payload: unknown) =>
  t.request({ method: 'PATCH', url: '/v1/me', token: user.token, payload: payload as object });
const row = (user: TestUser) =>
  t.db
    .selectFrom('users')
    .select(['display_name', 'locale', 'timezone', 'email', 'status', 'tier'])
    .where('id', '=', user.id)
    .executeTakeFirstOrThrow();
const suppression = (email: string) =>
  t.db
    .selectFrom('email_suppressions')
    .select(['reason', 'source'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();

describe('GET /v1/me', () => {
  it('shows the profile with its new fields', async () => {
    const user = await createUser(t.db);
    expect((await me(user)).json()).toEqual({
      id: user.id,
      email: user.email,
      display_name: null,
      provider: null,
      status: 'active',
      tier: null,
      locale: null,
      timezone: null,
      avatar_url: null,
      marketing_opt_in: true,
      created_at: expect.any(String),
      last_seen_at: expect.any(String),
      profile_updated_at: null,
    });
  });
});

describe('GET /v1/me as production writes it', () => {
  // The test apps check every answer against zod; production keeps a cached profile's text
  // instead (src/lib/response-serializer.ts, unchangingAnswer). A second instance on the same
  // database, serializing as production does.
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp({ database: t.testDatabase!.database, verifyResponseShaping: false });
  });
  afterAll(async () => {
    await production.close();
  });

  it('answers a changed profile after a change, never the kept text of the one before', async () => {
    const user = await createUser(t.db);
    const read = async () => (await production.request({ method: 'GET', url: '/v1/me', token: user.token })).json();
    expect((await read()).display_name).toBeNull();
    expect((await read()).display_name).toBeNull();
    const changed = await production.request({
      method: 'PATCH',
      url: '/v1/me',
      token: user.token,
      payload: { display_name: 'Grace' },
    });
    expect(changed.json().display_name).toBe('Grace');
    expect(await read()).toEqual(changed.json());
    expect((await read()).display_name).toBe('Grace');
  });
});

describe('PATCH /v1/me', () => {
  it('sets the display name (trimmed), locale and time zone; null clears; the answer is the profile', async () => {
    const user = await createUser(t.db);
    const response = await patch(user, { display_name: '  Ada L. ', locale: 'de-AT', timezone: 'Europe/Vienna' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      display_name: 'Ada L.',
      locale: 'de-AT',
      timezone: 'Europe/Vienna',
      profile_updated_at: expect.any(String),
    });
    expect(await row(user)).toMatchObject({ display_name: 'Ada L.', locale: 'de-AT', timezone: 'Europe/Vienna' });
    expect((await patch(user, { locale: null })).json()).toMatchObject({
      display_name: 'Ada L.',
      locale: null,
      timezone: 'Europe/Vienna',
    });
  });

  it.each([
    ['own columns alone', { display_name: 'Grace', timezone: 'Europe/Berlin' }],
    ['own columns with a marketing change', { display_name: 'Grace', marketing_opt_in: false }],
  ])('answers, after a change of %s, exactly the profile GET /v1/me shows next', async (_name, payload) => {
    const user = await createUser(t.db);
    await t.db
      .insertInto('email_suppressions')
      .values({ email: `${user.id}@other.test`, reason: 'unsubscribed', source: 'profile', message_id: null })
      .execute();
    const response = await patch(user, payload);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ ...payload, id: user.id, status: 'active' });
    expect(response.json()).toEqual((await me(user)).json());
  });

  it('marketing_opt_in false suppresses the address, true lifts it; an unsubscribe link shows in the profile', async () => {
    const user = await createUser(t.db);
    expect((await patch(user, { marketing_opt_in: false })).json()).toMatchObject({ marketing_opt_in: false });
    expect(await suppression(user.email)).toEqual({ reason: 'unsubscribed', source: 'profile' });
    expect((await patch(user, { marketing_opt_in: false })).statusCode).toBe(200);
    expect((await patch(user, { marketing_opt_in: true })).json()).toMatchObject({ marketing_opt_in: true });
    expect(await suppression(user.email)).toBeUndefined();

    const token = signUnsubscribeToken(t.kernel.signingKey, { email: user.email, messageId: null });
    await t.request({
      method: 'POST',
      url: `/v1/public/email/unsubscribe?token=${encodeURIComponent(token)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect((await me(user)).json().marketing_opt_in).toBe(false);
  });

  it('422 invalid_state re-subscribing a bounced address, or with no address; nothing changes', async () => {
    const bounced = await createUser(t.db);
    await t.db
      .insertInto('email_suppressions')
      .values({ email: bounced.email.toLowerCase(), reason: 'bounced', source: 'smtp', message_id: null })
      .execute();
    const refused = await patch(bounced, { marketing_opt_in: true, display_name: 'Not saved' });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 422,
      body: {
        error: 'invalid_state',
        details: { field: 'marketing_opt_in', reason: expect.any(String), suppression_reason: 'bounced' },
      },
    });
    expect(await suppression(bounced.email)).toEqual({ reason: 'bounced', source: 'smtp' });
    expect((await row(bounced)).display_name).toBeNull();

    // A token without an email claim: the account has no address.
    const noEmail = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', noEmail.id).execute();
    const response = await patch(
      { ...noEmail, token: await signToken({ sub: noEmail.id }) },
      { marketing_opt_in: false },
    );
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: {
        error: 'invalid_state',
        details: { field: 'marketing_opt_in', reason: 'the account has no email address' },
      },
    });
  });

  it.each([
    ['nothing to change', {}],
    ['an empty display name', { display_name: '   ' }],
    ['a display name over 100', { display_name: 'x'.repeat(101) }],
    ['a bad locale', { locale: 'English' }],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }],
    ['marketing_opt_in as text', { marketing_opt_in: 'yes' }],
    ['the email', { email: 'mine@example.test' }],
    ['the status', { status: 'active' }],
    ['the tier', { tier: 'gold' }],
    ['an id', { id: '00000000-0000-4000-8000-000000000000' }],
    ['an avatar (set through /v1/me/avatar)', { avatar_url: 'https://evil.example/x.png' }],
  ])('400 for %s; nothing changes', async (_name, payload) => {
    const user = await createUser(t.db);
    const before = await row(user);
    const response = await patch(user, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(await row(user)).toEqual(before);
  });

  it('401 without a token', async () => {
    expect((await t.request({ method: 'PATCH', url: '/v1/me', payload: { locale: 'en' } })).json()).toEqual({
      error: 'missing_token',
    });
  });
});
