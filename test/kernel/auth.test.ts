import type { LightMyRequestResponse } from 'fastify';
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT } from 'jose';
import { PERMISSION_CATALOG } from '../../src/modules/index.js';
import { sightingIntervalMs } from '../../src/kernel/principal.js';
import { createTokenVerifier } from '../../src/kernel/tokens.js';
import { createUser, startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectRefusedUnchanged } from '../helpers/expectations.js';
import {
  makeSigningKey,
  signAsymmetric,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../helpers/jwks-server.js';
import { storedState } from '../helpers/stored-state.js';
import { signToken, TEST_JWT_SECRET } from '../helpers/tokens.js';

/** The guarded routes every refusal is checked on: two caller routes and one staff route. */
const ROUTES = ['/v1/me', '/v1/me/permissions', '/v1/admin/roles'] as const;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const OTHER_SECRET = 'another-secret-entirely-not-the-configured-one-987654321';

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * A JWT assembled by hand, for headers jose refuses to produce: `alg: none` (empty signature)
 * or an asymmetric `alg` whose signature is really an HMAC over the given secret.
 */
function handMadeToken(header: Record<string, unknown>, payload: Record<string, unknown>, hmacSecret?: string): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const signature = hmacSecret === undefined ? '' : createHmac('sha256', hmacSecret).update(input).digest('base64url');
  return `${input}.${signature}`;
}

/** Claims a real token would carry, valid for an hour. */
function validClaims(sub: string): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { sub, aud: 'authenticated', role: 'authenticated', iat: now, exp: now + 3600 };
}

async function userRow(t: TestApp, id: string) {
  return t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What a refused request must leave untouched: no user created, changed or seen, no audit, no events. */
const refusalState = (t: TestApp) =>
  storedState(
    t.db,
    { users: ['id'], login_sessions: ['user_id', 'session_id'], audit_log: ['id'], event_outbox: ['id'] },
    [],
  );

function get(t: TestApp, url: string, authorization: string | undefined, headers: Record<string, string> = {}) {
  return t.request({
    method: 'GET',
    url,
    headers: authorization === undefined ? headers : { ...headers, authorization },
  });
}

/** An application error exactly: `{error}` (plus `details` only when given), a request id, no token or secret echoed. */
function expectErrorBody(
  response: LightMyRequestResponse,
  status: number,
  body: { error: string; details?: unknown },
  mustNotLeak: string[],
) {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toStrictEqual(body);
  if (!('details' in body)) expect(Object.keys(response.json())).toEqual(['error']);
  expect(response.headers['x-request-id']).toMatch(REQUEST_ID);
  // Short fragments ("x" of "Basic x") would match by chance; every real token and secret is long.
  for (const secret of mustNotLeak.filter((s) => s.length >= 8)) expect(response.body).not.toContain(secret);
}

interface RefusalCase {
  name: string;
  /** Builds the Authorization header (undefined: none) and the subject the token names, if any. */
  make: () => Promise<{ authorization: string | undefined; sub?: string }>;
  error: 'missing_token' | 'invalid_token' | 'invalid_audience';
}

/** Sends each refusal to every guarded route; each answers exactly and changes nothing. */
async function expectRefusedEverywhere(t: TestApp, refusal: RefusalCase, extraSecrets: string[] = []) {
  const { authorization, sub } = await refusal.make();
  const token = authorization?.replace(/^\S+\s*/, '') ?? '';
  for (const url of ROUTES) {
    const body = { error: refusal.error };
    const response = await expectRefusedUnchanged(
      () => refusalState(t),
      () => get(t, url, authorization),
      401,
      body,
    );
    expectErrorBody(response, 401, body, [token, TEST_JWT_SECRET, OTHER_SECRET, ...extraSecrets]);
  }
  if (sub !== undefined) expect(await userRow(t, sub)).toBeUndefined();
}

const bearer = async (token: Promise<string> | string, sub?: string) => ({
  authorization: `Bearer ${await token}`,
  sub,
});

// One database for the file: each describe below runs its own app (its own token settings) on it,
// one after another, and every case uses fresh subjects. A database per app was most of the
// file's time.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});
const appOnTheDatabase = async (options: TestAppOptions = {}) =>
  startTestApp({ ...options, database: await database.openAnother() });

// One app (HS256 secret only) serves the refusal table, the users and the permission scenarios:
// every case uses fresh subjects, so they do not interfere.
describe('with the HS256 secret', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appOnTheDatabase();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('authentication', () => {
    const refusals: RefusalCase[] = [
      // missing_token: no bearer credential at all.
      { name: 'no Authorization header', error: 'missing_token', make: async () => ({ authorization: undefined }) },
      { name: 'Basic scheme', error: 'missing_token', make: async () => ({ authorization: 'Basic x' }) },
      {
        name: '"Bearer" with nothing after it',
        error: 'missing_token',
        make: async () => ({ authorization: 'Bearer' }),
      },
      {
        name: '"Bearer " with only spaces',
        error: 'missing_token',
        make: async () => ({ authorization: 'Bearer   ' }),
      },
      // invalid_token: the signature, the time window or a required claim fails.
      {
        name: 'signed with another secret',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, secret: OTHER_SECRET }), sub);
        },
      },
      {
        name: 'expired 45 s ago (beyond the 30 s skew)',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, expiresIn: -45 }), sub);
        },
      },
      {
        name: 'nbf 90 s in the future (beyond the skew)',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, notBefore: 90 }), sub);
        },
      },
      { name: 'no sub claim', error: 'invalid_token', make: () => bearer(signToken({ sub: null })) },
      {
        name: 'no exp claim',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, expiresIn: null }), sub);
        },
      },
      { name: 'sub is not a uuid', error: 'invalid_token', make: () => bearer(signToken({ sub: 'user-42' })) },
      {
        name: 'garbage instead of a JWT',
        error: 'invalid_token',
        make: async () => ({ authorization: 'Bearer not-a-jwt' }),
      },
      {
        name: 'three garbage segments',
        error: 'invalid_token',
        make: async () => ({ authorization: 'Bearer aaa.bbb.ccc' }),
      },
      {
        name: 'alg none (unsecured JWT)',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(handMadeToken({ alg: 'none', typ: 'JWT' }, validClaims(sub)), sub);
        },
      },
      {
        name: 'ES256 header, HMAC-signed with the secret (confusion)',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(handMadeToken({ alg: 'ES256', typ: 'JWT' }, validClaims(sub), TEST_JWT_SECRET), sub);
        },
      },
      {
        name: 'RS256 header, HMAC-signed with the secret (confusion)',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(handMadeToken({ alg: 'RS256', typ: 'JWT' }, validClaims(sub), TEST_JWT_SECRET), sub);
        },
      },
      {
        name: 'HS256 header with an empty signature',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(handMadeToken({ alg: 'HS256', typ: 'JWT' }, validClaims(sub)), sub);
        },
      },
      // Signature failures come first: a forged token never learns that its audience was wrong.
      {
        name: 'bad signature and aud anon',
        error: 'invalid_token',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, aud: 'anon', secret: OTHER_SECRET }), sub);
        },
      },
      // invalid_audience: a genuine token that is not for signed-in users.
      {
        name: 'aud anon',
        error: 'invalid_audience',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, aud: 'anon' }), sub);
        },
      },
      {
        name: 'aud missing',
        error: 'invalid_audience',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, aud: null }), sub);
        },
      },
      {
        name: 'aud a list without authenticated',
        error: 'invalid_audience',
        make: () => {
          const sub = randomUUID();
          return bearer(signToken({ sub, aud: ['anon', 'service_role'] }), sub);
        },
      },
    ];

    it.each(refusals)('401 $error: $name', async (refusal) => {
      await expectRefusedEverywhere(t, refusal);
    });

    it('reuses a well-formed inbound x-request-id on a 401', async () => {
      const response = await get(t, '/v1/me', undefined, { 'x-request-id': 'trace-401.abc' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-request-id']).toBe('trace-401.abc');
    });

    // The clock-skew edges, accepted side: within 30 s the token still works (and signs the user in).
    const withinSkew = [
      { name: 'expired 15 s ago', options: { expiresIn: -15 } },
      { name: 'nbf 15 s in the future', options: { notBefore: 15 } },
    ];
    it.each(withinSkew)('200 for a token $name (within the skew)', async ({ options }) => {
      const sub = randomUUID();
      const token = await signToken({ sub, ...options });
      const response = await t.request({ method: 'GET', url: '/v1/me', token });
      expect(response.statusCode).toBe(200);
      expect(response.json().id).toBe(sub);
      expect(response.body).not.toContain(token);
      expect((await userRow(t, sub))?.status).toBe('active');
    });

    it('a token whose sub is an upper-case uuid names the lower-case user', async () => {
      const sub = randomUUID();
      const response = await t.request({
        method: 'GET',
        url: '/v1/me',
        token: await signToken({ sub: sub.toUpperCase() }),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().id).toBe(sub);
    });
  });

  describe('users created and tracked from tokens', () => {
    it('the first signed-in request creates the users row from the claims; /v1/me shows it', async () => {
      const sub = randomUUID();
      const email = `first-${sub.slice(0, 8)}@example.test`;
      const token = await signToken({
        sub,
        email,
        claims: { app_metadata: { provider: 'github', providers: ['github'] } },
      });
      expect(await userRow(t, sub)).toBeUndefined();
      const startedAt = Date.now();

      const response = await t.request({ method: 'GET', url: '/v1/me', token });

      expect(response.statusCode).toBe(200);
      const row = await userRow(t, sub);
      expect(row).toMatchObject({ id: sub, email, provider: 'github', status: 'active', display_name: null });
      expect(row!.last_seen_at).toBeInstanceOf(Date);
      expect(row!.last_seen_at!.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
      expect(row!.last_seen_at!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
      expect(response.json()).toStrictEqual({
        id: sub,
        email,
        display_name: null,
        provider: 'github',
        status: 'active',
        tier: null,
        locale: null,
        timezone: null,
        avatar_url: null,
        marketing_opt_in: true,
        created_at: row!.created_at.toISOString(),
        last_seen_at: row!.last_seen_at!.toISOString(),
        profile_updated_at: null,
      });
      expect(response.body).not.toContain(token);
      // Signing in is not a staff write: nothing audited, no events.
      expect(await t.db.selectFrom('audit_log').selectAll().execute()).toEqual([]);
      expect(await t.db.selectFrom('event_outbox').selectAll().execute()).toEqual([]);
    });

    const providerCases = [
      { name: 'no app_metadata', claims: {}, provider: null },
      { name: 'app_metadata without provider', claims: { app_metadata: { providers: ['email'] } }, provider: null },
      { name: 'app_metadata.provider email', claims: { app_metadata: { provider: 'email' } }, provider: 'email' },
    ];
    it.each(providerCases)('provider from the token: $name → $provider', async ({ claims, provider }) => {
      const sub = randomUUID();
      const response = await t.request({
        method: 'GET',
        url: '/v1/me/permissions',
        token: await signToken({ sub, claims }),
      });
      expect(response.statusCode).toBe(200);
      expect(await userRow(t, sub)).toMatchObject({ id: sub, email: null, provider, status: 'active' });
    });

    it('last_seen_at moves at most once every 60 to 90 s', async () => {
      // A user whose own interval is well past the minute, so the offset is seen to count.
      let sub = randomUUID();
      while (sightingIntervalMs(sub) < 80_000) sub = randomUUID();
      const token = await signToken({ sub, email: `seen-${sub.slice(0, 8)}@example.test` });
      const lastSeen = async () => (await userRow(t, sub))!.last_seen_at!.getTime();
      const setLastSeen = (at: Date) =>
        t.db.updateTable('users').set({ last_seen_at: at }).where('id', '=', sub).execute();

      expect((await t.request({ method: 'GET', url: '/v1/me', token })).statusCode).toBe(200);
      const first = await lastSeen();

      // A second request right away leaves the row alone.
      expect((await t.request({ method: 'GET', url: '/v1/me/permissions', token })).statusCode).toBe(200);
      expect(await lastSeen()).toBe(first);

      // 30 s ago is still within the minute: unchanged.
      const thirtySecondsAgo = new Date(Date.now() - 30_000);
      await setLastSeen(thirtySecondsAgo);
      expect((await t.request({ method: 'GET', url: '/v1/me', token })).statusCode).toBe(200);
      expect(await lastSeen()).toBe(thirtySecondsAgo.getTime());

      // Over the minute but short of the user's own interval: unchanged.
      const shortOfInterval = new Date(Date.now() - sightingIntervalMs(sub) + 5_000);
      await setLastSeen(shortOfInterval);
      expect((await t.request({ method: 'GET', url: '/v1/me', token })).statusCode).toBe(200);
      expect(await lastSeen()).toBe(shortOfInterval.getTime());

      // Past the user's own interval (60-90 s): the next request moves it to now.
      await setLastSeen(new Date(Date.now() - sightingIntervalMs(sub) - 1_000));
      const before = Date.now();
      const response = await t.request({ method: 'GET', url: '/v1/me', token });
      expect(response.statusCode).toBe(200);
      const moved = await lastSeen();
      expect(moved).toBeGreaterThanOrEqual(before - 1_000);
      expect(response.json().last_seen_at).toBe(new Date(moved).toISOString());
    });

    it("a crowd's sightings fall due spread over half a minute, each user's at the same offset every time", () => {
      const intervals = Array.from({ length: 1_000 }, () => randomUUID()).map(
        (id) => [id, sightingIntervalMs(id)] as const,
      );
      for (const [id, interval] of intervals) {
        expect(interval).toBeGreaterThanOrEqual(60_000);
        expect(interval).toBeLessThan(90_000);
        expect(sightingIntervalMs(id)).toBe(interval);
      }
      // Per second of the half minute, about 33 of the 1,000; none gets as many as 100.
      const perSecond = new Map<number, number>();
      for (const [, interval] of intervals)
        perSecond.set(Math.floor(interval / 1_000), (perSecond.get(Math.floor(interval / 1_000)) ?? 0) + 1);
      expect(perSecond.size).toBe(30);
      expect(Math.max(...perSecond.values())).toBeLessThan(100);
    });

    const refusedAccounts = [
      { status: 'banned' as const, reason: 'account_banned' },
      { status: 'deleted' as const, reason: 'account_deleted' },
    ];
    it.each(refusedAccounts)(
      'a $status user with a valid token gets 403 $reason everywhere',
      async ({ status, reason }) => {
        // Holding the staff permission changes nothing: the account status is checked first.
        const user = await createUser(t.db, ['roles.read'], { status });
        const body = { error: 'forbidden', details: { reason } };
        for (const url of ROUTES) {
          // A refused account is not "seen": its row is left exactly as it was.
          const send = () => t.request({ method: 'GET', url, token: user.token });
          const response = await expectRefusedUnchanged(() => refusalState(t), send, 403, body);
          expectErrorBody(response, 403, body, [user.token, TEST_JWT_SECRET]);
        }
        expect((await userRow(t, user.id))?.status).toBe(status);
        expect((await userRow(t, user.id))?.last_seen_at).toBeNull();
      },
    );

    it('a banned user without any permission still gets the account reason on a staff route', async () => {
      const user = await createUser(t.db, [], { status: 'banned' });
      const response = await t.request({ method: 'GET', url: '/v1/admin/roles', token: user.token });
      expectErrorBody(response, 403, { error: 'forbidden', details: { reason: 'account_banned' } }, [user.token]);
    });
  });

  describe('effective permissions', () => {
    const MINUTE = 60_000;
    const ALL_KEYS = Object.keys(PERMISSION_CATALOG).sort();

    /** One more role for the user, holding these keys, optionally expiring. */
    async function grantRole(userId: string, key: string, permissions: string[], expiresAt: Date | null) {
      const role = await t.db
        .insertInto('roles')
        .values({ key, name: `Role ${key}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.db
        .insertInto('role_permissions')
        .values(permissions.map((permission_key) => ({ role_id: role.id, permission_key })))
        .execute();
      await t.db
        .insertInto('user_roles')
        .values({ user_id: userId, role_id: role.id, granted_by: null, reason: 'test', expires_at: expiresAt })
        .execute();
    }

    const scenarios: Array<{
      name: string;
      grants: Array<{ permissions: string[]; expiresInMs: number | null }>;
      permissions: string[];
      /** Status of GET /v1/admin/roles (needs roles.read). */
      admin: 200 | 403;
    }> = [
      { name: 'no roles', grants: [], permissions: [], admin: 403 },
      {
        name: 'roles.* expands to every roles key',
        grants: [{ permissions: ['roles.*'], expiresInMs: null }],
        permissions: ['roles.assign', 'roles.read', 'roles.write'],
        admin: 200,
      },
      {
        name: 'two roles, overlapping keys: union, sorted, once each',
        grants: [
          { permissions: ['users.read', 'ops.read'], expiresInMs: null },
          { permissions: ['audit.read', 'users.read'], expiresInMs: null },
        ],
        permissions: ['audit.read', 'ops.read', 'users.read'],
        admin: 403,
      },
      {
        name: 'a grant that expired a minute ago grants nothing',
        grants: [{ permissions: ['roles.read'], expiresInMs: -MINUTE }],
        permissions: [],
        admin: 403,
      },
      {
        name: 'an expired roles.* grant beside a live audit.read grant',
        grants: [
          { permissions: ['roles.*'], expiresInMs: -MINUTE },
          { permissions: ['audit.read'], expiresInMs: null },
        ],
        permissions: ['audit.read'],
        admin: 403,
      },
      {
        name: 'a grant expiring in an hour still counts',
        grants: [{ permissions: ['roles.read'], expiresInMs: 60 * MINUTE }],
        permissions: ['roles.read'],
        admin: 200,
      },
      {
        name: '* expands to the whole catalog',
        grants: [{ permissions: ['*'], expiresInMs: null }],
        permissions: ALL_KEYS,
        admin: 200,
      },
    ];

    it.each(scenarios)('$name', async ({ grants, permissions, admin }) => {
      const user = await createUser(t.db);
      const live: Array<{ key: string; name: string; expires_at: string | null }> = [];
      for (const [index, grant] of grants.entries()) {
        const key = `perm-${user.id.slice(0, 8)}-${index}`;
        const expiresAt = grant.expiresInMs === null ? null : new Date(Date.now() + grant.expiresInMs);
        await grantRole(user.id, key, grant.permissions, expiresAt);
        if (expiresAt === null || expiresAt.getTime() > Date.now())
          live.push({ key, name: `Role ${key}`, expires_at: expiresAt?.toISOString() ?? null });
      }

      const response = await t.request({ method: 'GET', url: '/v1/me/permissions', token: user.token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ permissions, roles: live });
      // Sorted by plain code-unit order, whatever the grants' order.
      expect(response.json().permissions).toEqual([...response.json().permissions].sort());

      const staff = await t.request({ method: 'GET', url: '/v1/admin/roles', token: user.token });
      expect(staff.statusCode).toBe(admin);
      if (admin === 403)
        expectErrorBody(staff, 403, { error: 'forbidden', details: { perm: 'roles.read' } }, [user.token]);
    });
  });
});

describe('authentication with a JWKS only (ES256 and RS256)', () => {
  let t: TestApp;
  let jwks: JwksServer;
  let es256: SigningKey;
  let rs256: SigningKey;
  let stranger: SigningKey;

  beforeAll(async () => {
    [es256, rs256, stranger] = await Promise.all([
      makeSigningKey('ES256'),
      makeSigningKey('RS256'),
      makeSigningKey('ES256'),
    ]);
    jwks = await startJwksServer([es256, rs256]);
    t = await appOnTheDatabase({ config: { jwtSecret: undefined, jwtSecretSource: 'none', jwksUrl: jwks.url } });
  });
  afterAll(async () => {
    await t.close();
    await jwks.close();
  });

  const accepted = [
    { name: 'ES256', key: () => es256 },
    { name: 'RS256', key: () => rs256 },
  ];
  it.each(accepted)(
    'accepts a $name token from the key set: user created, staff route works with its grants',
    async ({ key }) => {
      const sub = randomUUID();
      const email = `jwks-${sub.slice(0, 8)}@example.test`;
      const token = await signAsymmetric(key(), { sub, email, claims: { app_metadata: { provider: 'google' } } });
      const me = await t.request({ method: 'GET', url: '/v1/me', token });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ id: sub, email, provider: 'google', status: 'active' });
      expect(me.body).not.toContain(token);
      expect(await userRow(t, sub)).toMatchObject({ id: sub, email, provider: 'google', status: 'active' });

      const staffUser = await createUser(t.db, ['roles.read']);
      const staff = await t.request({
        method: 'GET',
        url: '/v1/admin/roles',
        token: await signAsymmetric(key(), { sub: staffUser.id }),
      });
      expect(staff.statusCode).toBe(200);
      expect(staff.json().meta.total).toBeGreaterThanOrEqual(1);
    },
  );

  const refusals: RefusalCase[] = [
    {
      name: 'a valid HS256 token when only a JWKS is configured',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub }), sub);
      },
    },
    {
      name: 'HS256 signed with the ES256 public key (PEM) as HMAC secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub, secret: es256.publicPem }), sub);
      },
    },
    {
      name: 'HS256 signed with the RS256 public key (PEM) as HMAC secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub, secret: rs256.publicPem }), sub);
      },
    },
    {
      name: 'HS256 signed with the RS256 public JWK (JSON) as HMAC secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub, secret: JSON.stringify(rs256.publicJwk) }), sub);
      },
    },
    {
      name: 'RS256 header with the known kid, HMAC-signed with the public PEM (confusion)',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(
          handMadeToken({ alg: 'RS256', kid: rs256.kid, typ: 'JWT' }, validClaims(sub), rs256.publicPem),
          sub,
        );
      },
    },
    {
      name: 'ES256 header with the known kid, HMAC-signed with the public PEM (confusion)',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(
          handMadeToken({ alg: 'ES256', kid: es256.kid, typ: 'JWT' }, validClaims(sub), es256.publicPem),
          sub,
        );
      },
    },
    {
      name: 'ES256 signed by a key outside the set, claiming a published kid',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signAsymmetric(stranger, { sub, kid: es256.kid }), sub);
      },
    },
    {
      name: 'alg none with a published kid',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(handMadeToken({ alg: 'none', kid: es256.kid }, validClaims(sub)), sub);
      },
    },
    {
      name: 'ES256 expired 45 s ago',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signAsymmetric(es256, { sub, expiresIn: -45 }), sub);
      },
    },
    {
      name: 'ES256 with no exp',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signAsymmetric(es256, { sub, claims: { exp: undefined } }), sub);
      },
    },
    {
      name: 'ES256 whose sub is not a uuid',
      error: 'invalid_token',
      make: () => bearer(signAsymmetric(es256, { sub: 'service-account' })),
    },
    {
      name: 'ES256 by a foreign key and aud anon (signature first)',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signAsymmetric(stranger, { sub, kid: es256.kid, claims: { aud: 'anon' } }), sub);
      },
    },
    {
      name: 'ES256 with aud anon',
      error: 'invalid_audience',
      make: () => {
        const sub = randomUUID();
        return bearer(signAsymmetric(es256, { sub, claims: { aud: 'anon' } }), sub);
      },
    },
  ];

  it.each(refusals)('401 $error: $name', async (refusal) => {
    await expectRefusedEverywhere(t, refusal, [es256.publicPem, rs256.publicPem]);
  });
});

describe('authentication with both the HS256 secret and a JWKS', () => {
  let t: TestApp;
  let jwks: JwksServer;
  let es256: SigningKey;

  beforeAll(async () => {
    es256 = await makeSigningKey('ES256');
    jwks = await startJwksServer([es256]);
    t = await appOnTheDatabase({ config: { jwksUrl: jwks.url } });
  });
  afterAll(async () => {
    await t.close();
    await jwks.close();
  });

  it('accepts HS256 tokens against the secret and ES256 tokens against the key set', async () => {
    for (const token of [await signToken(), await signAsymmetric(es256)]) {
      const response = await t.request({ method: 'GET', url: '/v1/me/permissions', token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ permissions: [], roles: [] });
    }
  });

  const refusals: RefusalCase[] = [
    {
      name: 'ES256 header with the published kid, HMAC-signed with the secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(
          handMadeToken({ alg: 'ES256', kid: es256.kid, typ: 'JWT' }, validClaims(sub), TEST_JWT_SECRET),
          sub,
        );
      },
    },
    {
      name: 'RS256 header, HMAC-signed with the secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(handMadeToken({ alg: 'RS256', typ: 'JWT' }, validClaims(sub), TEST_JWT_SECRET), sub);
      },
    },
    {
      name: 'HS256 signed with the ES256 public key (PEM) as HMAC secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub, secret: es256.publicPem }), sub);
      },
    },
    {
      name: 'HS256 signed with the public JWK (JSON) as HMAC secret',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(signToken({ sub, secret: JSON.stringify(es256.publicJwk) }), sub);
      },
    },
    {
      name: 'HS512 signed with the secret (only HS256 is accepted)',
      error: 'invalid_token',
      make: () => {
        const sub = randomUUID();
        return bearer(
          new SignJWT(validClaims(sub))
            .setProtectedHeader({ alg: 'HS512' })
            .sign(new TextEncoder().encode(TEST_JWT_SECRET)),
          sub,
        );
      },
    },
  ];

  it.each(refusals)('401 $error: $name', async (refusal) => {
    await expectRefusedEverywhere(t, refusal, [es256.publicPem]);
  });
});

describe('JWKS key rotation: an unknown kid refetches the key set at most once per 30 s', () => {
  let t: TestApp;
  let jwks: JwksServer;
  let first: SigningKey;
  let second: SigningKey;
  let third: SigningKey;

  beforeAll(async () => {
    [first, second, third] = await Promise.all([
      makeSigningKey('ES256', 'key-1'),
      makeSigningKey('ES256', 'key-2'),
      makeSigningKey('ES256', 'key-3'),
    ]);
    jwks = await startJwksServer([first]);
    t = await appOnTheDatabase({ config: { jwtSecret: undefined, jwtSecretSource: 'none', jwksUrl: jwks.url } });
  });
  afterAll(async () => {
    await t.close();
    await jwks.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fetches once, refetches on a rotated kid after the cooldown, and not again within 30 s', async () => {
    // Only the wall clock is controlled (timers, I/O and the database run for real): jose
    // measures the cooldown from the last fetch with Date.now().
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const at = (seconds: number) => vi.setSystemTime(t0 + seconds * 1000);
    const status = async (key: SigningKey, kid = key.kid) =>
      (await t.request({ method: 'GET', url: '/v1/me', token: await signAsymmetric(key, { kid }) })).statusCode;

    expect(jwks.hits).toBe(0);
    expect(await status(first)).toBe(200);
    expect(jwks.hits).toBe(1);
    expect(await status(first)).toBe(200);
    expect(jwks.hits).toBe(1); // cached

    // The provider rotates to key-2. Within 30 s of the last fetch the unknown kid is refused unfetched.
    jwks.publish([second]);
    at(10);
    expect(await status(second)).toBe(401);
    expect(jwks.hits).toBe(1);

    // After the cooldown, the unknown kid triggers exactly one refetch and the new key works.
    at(31);
    expect(await status(second)).toBe(200);
    expect(jwks.hits).toBe(2);
    expect(await status(second)).toBe(200);
    expect(jwks.hits).toBe(2);

    // A second rotation within 30 s of that refetch: unknown kids do not refetch again.
    jwks.publish([third]);
    at(40);
    expect(await status(third)).toBe(401);
    expect(await status(third, 'never-published')).toBe(401);
    at(60);
    expect(await status(third)).toBe(401);
    expect(jwks.hits).toBe(2);

    // Once 30 s have passed since the last fetch, the next unknown kid refetches once more.
    at(62);
    expect(await status(third)).toBe(200);
    expect(jwks.hits).toBe(3);
    // key-1 left the set: a token still naming it is refused, and cannot force a refetch now.
    expect(await status(first)).toBe(401);
    expect(jwks.hits).toBe(3);
  });
});

describe('verified HS256 tokens are remembered, their expiry is not', () => {
  let jwks: JwksServer;
  let es256: SigningKey;
  beforeAll(async () => {
    es256 = await makeSigningKey('ES256');
    jwks = await startJwksServer([es256]);
  });
  afterAll(() => jwks.close());
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('checks an HS256 signature once per token; a JWKS-verified token every time', async () => {
    const verifier = createTokenVerifier({ jwtSecret: TEST_JWT_SECRET, jwksUrl: jwks.url, clockSkewSeconds: 30 });
    const checks = vi.spyOn(crypto.subtle, 'verify');
    const hs256 = await signToken({ sub: randomUUID() });
    for (let i = 0; i < 3; i += 1) expect((await verifier.verify(hs256)).claims.sub).toBeDefined();
    expect(checks).toHaveBeenCalledTimes(1);
    const asymmetric = await signAsymmetric(es256, { sub: randomUUID() });
    checks.mockClear();
    for (let i = 0; i < 3; i += 1) await verifier.verify(asymmetric);
    expect(checks).toHaveBeenCalledTimes(3);
    // A forgery of a remembered token is not it: the text is the key.
    const forged = `${hs256.slice(0, hs256.lastIndexOf('.'))}.${'A'.repeat(43)}`;
    await expect(verifier.verify(forged)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
  });

  it('a remembered token past its exp (and the skew) is refused, and so is one remembered for a minute, checked afresh', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = createTokenVerifier({ jwtSecret: TEST_JWT_SECRET, jwksUrl: undefined, clockSkewSeconds: 30 });
    const token = await signToken({ sub: randomUUID(), expiresIn: 10 });
    await verifier.verify(token);
    vi.setSystemTime(Date.now() + 39_000);
    await verifier.verify(token);
    vi.setSystemTime(Date.now() + 2_000);
    await expect(verifier.verify(token)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });

    const longLived = await signToken({ sub: randomUUID(), expiresIn: 3_600 });
    await verifier.verify(longLived);
    const checks = vi.spyOn(crypto.subtle, 'verify');
    vi.setSystemTime(Date.now() + 59_000);
    await verifier.verify(longLived);
    expect(checks).toHaveBeenCalledTimes(0);
    vi.setSystemTime(Date.now() + 2_000);
    await verifier.verify(longLived);
    expect(checks).toHaveBeenCalledTimes(1);
  });
});
