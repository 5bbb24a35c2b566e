import { createHmac, randomUUID, webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { createTokenVerifier, JWKS_REFETCH_COOLDOWN_MS } from '../../src/kernel/tokens.js';
import { createUser, startTestApp, type TestUser } from '../helpers/app.js';
import {
  makeSigningKey,
  signAsymmetric,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../helpers/jwks-server.js';
import { captureLog } from '../helpers/captured-log.js';
import { signToken, TEST_JWT_SECRET } from '../helpers/tokens.js';

/**
 * Attacks on the bearer token, against a service that verifies HS256 with its secret and
 * ES256/RS256 against a JWKS (both configured): unsecured and confused algorithms, key ids
 * carrying paths or SQL, huge and malformed headers, keys the token points at itself (`jku`,
 * `x5u`, `jwk`, served by a trap the service must never call), a flood of unknown key ids (the
 * JWKS is fetched at most once per cooldown), key rotation, and claims a user can edit. Every
 * refusal is a clean 401 (never 5xx, never slow). test/kernel/auth.test.ts covers the basic
 * refusals one by one; this suite is the attacker's side.
 */

let t: Awaited<ReturnType<typeof startTestApp>>;
let jwks: JwksServer;
let es256: SigningKey;
let rs256: SigningKey;
let attacker: SigningKey;
let trap: { url: string; hits: string[]; close(): Promise<void> };
let staff: TestUser;

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function claims(sub: string = randomUUID(), extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { sub, aud: 'authenticated', role: 'authenticated', iat: now, exp: now + 3600, ...extra };
}

/** A token with exactly this header (any JSON, or raw text), HMAC-SHA256-signed with `secret` or unsigned. */
function hmacToken(header: unknown, payload: unknown, secret?: string | Buffer): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${secret === undefined ? '' : createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** A token with exactly this header, signed ES256 by `key` (a real signature: only the header lies). */
async function es256Token(
  key: SigningKey,
  header: Record<string, unknown>,
  payload: unknown = claims(),
): Promise<string> {
  const input = `${b64url({ alg: 'ES256', typ: 'JWT', ...header })}.${b64url(payload)}`;
  const signature = await webcrypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    key.privateKey as webcrypto.CryptoKey,
    Buffer.from(input),
  );
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

async function answer(token: string, url = '/v1/me') {
  const response = await t.request({ method: 'GET', url, token });
  return { status: response.statusCode, body: response.body === '' ? null : response.json() };
}

const invalidToken = { status: 401, body: { error: 'invalid_token' } };

async function startTrap(): Promise<typeof trap> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [attacker.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  [es256, rs256, attacker] = await Promise.all([
    makeSigningKey('ES256'),
    makeSigningKey('RS256'),
    makeSigningKey('ES256'),
  ]);
  jwks = await startJwksServer([es256, rs256]);
  trap = await startTrap();
  t = await startTestApp({ config: { jwksUrl: jwks.url } });
  staff = await createUser(t.db, ['roles.read']);
  // The key set is fetched once here; every test below counts fetches from this point.
  expect(await answer(await signAsymmetric(es256, { sub: staff.id }), '/v1/admin/roles')).toMatchObject({
    status: 200,
  });
  expect(jwks.hits).toBe(1);
});
afterAll(async () => {
  await t?.close();
  await jwks?.close();
  await trap?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('algorithms', () => {
  it('`alg: none` in any spelling, signed or not, is refused', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE', '', 'HS256 ', 'hs256']) {
      for (const secret of [undefined, TEST_JWT_SECRET]) {
        expect(
          await answer(hmacToken({ alg, typ: 'JWT' }, claims(staff.id), secret)),
          `alg ${JSON.stringify(alg)}`,
        ).toEqual(invalidToken);
      }
    }
    // A real HS256 token with its signature cut off.
    const [header, payload] = (await signToken({ sub: staff.id })).split('.');
    expect(await answer(`${header}.${payload}.`)).toEqual(invalidToken);
    expect(await answer(`${header}.${payload}`)).toEqual(invalidToken);
  });

  it('HS256 signed with the JWKS public key (PEM, JWK, raw coordinates) as the HMAC secret is refused', async () => {
    const secrets = [
      es256.publicPem,
      rs256.publicPem,
      JSON.stringify(es256.publicJwk),
      JSON.stringify(rs256.publicJwk),
      JSON.stringify({ keys: [es256.publicJwk, rs256.publicJwk] }),
      String(es256.publicJwk.x),
      Buffer.from(String(es256.publicJwk.x), 'base64url'),
      String(rs256.publicJwk.n),
    ];
    for (const secret of secrets) {
      for (const header of [
        { alg: 'HS256', typ: 'JWT' },
        { alg: 'HS256', kid: es256.kid },
        { alg: 'HS256', kid: rs256.kid },
      ]) {
        expect(
          await answer(hmacToken(header, claims(staff.id), secret)),
          `${JSON.stringify(header)} with ${String(secret).slice(0, 30)}`,
        ).toEqual(invalidToken);
      }
    }
    // An asymmetric header HMAC-signed with the public key: never checked with an HMAC at all.
    for (const alg of ['ES256', 'RS256', 'PS256', 'EdDSA']) {
      expect(
        await answer(
          hmacToken(
            { alg, kid: alg === 'RS256' ? rs256.kid : es256.kid },
            claims(staff.id),
            alg === 'RS256' ? rs256.publicPem : es256.publicPem,
          ),
        ),
        alg,
      ).toEqual(invalidToken);
    }
  });

  it('with a JWKS only, HS256 is refused whatever signs it (the public key included)', async () => {
    const verifier = createTokenVerifier({ jwtSecret: undefined, jwksUrl: jwks.url, clockSkewSeconds: 30 });
    const hits = jwks.hits;
    for (const secret of [es256.publicPem, JSON.stringify(es256.publicJwk), TEST_JWT_SECRET, '']) {
      const refusal = await verifier
        .verify(hmacToken({ alg: 'HS256', kid: es256.kid }, claims(), secret))
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ status: 401, code: 'invalid_token' });
    }
    expect(jwks.hits).toBe(hits); // refused before any key was looked up
    await expect(verifier.verify(await signAsymmetric(es256))).resolves.toMatchObject({
      claims: { aud: 'authenticated' },
    });
  });

  it('other HMAC strengths and unknown algorithms are refused even with the right secret', async () => {
    for (const alg of ['HS384', 'HS512', 'ES256K', 'RS1', 'A256GCM', 'dir']) {
      expect(await answer(hmacToken({ alg }, claims(staff.id), TEST_JWT_SECRET)), alg).toEqual(invalidToken);
    }
  });
});

describe('key ids and headers', () => {
  const HOSTILE_KIDS = [
    '../../../../../../etc/passwd',
    '/dev/null',
    '..\\..\\windows\\win.ini',
    'file:///etc/passwd',
    'C:\\x',
    "' OR '1'='1",
    "x'; DROP TABLE users; --",
    '1 UNION SELECT secret FROM service_secrets',
    '$(id)',
    '`id`',
    '%00',
    '\u0000',
    '\n',
  ];

  it('a kid carrying path or SQL text is a key id like any other: asymmetric tokens refused, at most one key-set fetch', async () => {
    const hits = jwks.hits;
    for (const kid of HOSTILE_KIDS) {
      expect(
        await answer(await es256Token(attacker, { kid }, claims(staff.id))),
        `attacker kid ${JSON.stringify(kid)}`,
      ).toEqual(invalidToken);
      // The published key's own signature under a kid that names nothing: no key matches.
      expect(
        await answer(await es256Token(es256, { kid }, claims(staff.id))),
        `published key, kid ${JSON.stringify(kid)}`,
      ).toEqual(invalidToken);
    }
    expect(jwks.hits - hits).toBeLessThanOrEqual(1);
    // HS256 never looks at a kid: the real secret's token still works, and nothing was read or written by the kid.
    expect(
      (
        await answer(
          hmacToken({ alg: 'HS256', kid: HOSTILE_KIDS[6] }, claims(staff.id), TEST_JWT_SECRET),
          '/v1/admin/roles',
        )
      ).status,
    ).toBe(200);
    expect(await t.db.selectFrom('users').select('id').where('id', '=', staff.id).execute()).toHaveLength(1);
  });

  it('malformed headers (not JSON, not an object, non-string alg or kid, unknown crit, unencoded payload) are a clean 401', async () => {
    const payload = b64url(claims(staff.id));
    const raw = [
      `${b64url('not json')}.${payload}.sig`,
      `${b64url('[]')}.${payload}.sig`,
      `${b64url('null')}.${payload}.sig`,
      `${b64url('"HS256"')}.${payload}.sig`,
      `${b64url('{"alg":"HS256"')}.${payload}.sig`,
      'a.b',
      'a.b.c.d.e',
      '....',
      '.'.repeat(1000),
      `${b64url({ alg: 'HS256' })}.${'%%%'}.x`,
    ];
    for (const token of raw) expect(await answer(token), token.slice(0, 60)).toEqual(invalidToken);
    const headers: Array<Record<string, unknown>> = [
      { alg: 123 },
      { alg: ['ES256'] },
      { alg: { name: 'ES256' } },
      { alg: null },
      { kid: 123 },
      { kid: { $ne: null } },
      { kid: ['a', 'b'] },
      { kid: null },
      { crit: ['exp'], exp: 1 },
      { crit: ['x-unknown'], 'x-unknown': true },
      { b64: false, crit: ['b64'] },
    ];
    for (const header of headers) {
      expect(
        await answer(await es256Token(es256, header, claims(staff.id))),
        `ES256 ${JSON.stringify(header)}`,
      ).toEqual(invalidToken);
      // HS256 with the real secret never reads `kid`: only a changed alg or a `crit`/`b64` makes it a refusal.
      const hs = await answer(hmacToken({ alg: 'HS256', ...header }, claims(staff.id), TEST_JWT_SECRET));
      expect(hs.status, `HS256 ${JSON.stringify(header)}`).toBe('alg' in header || 'crit' in header ? 401 : 200);
    }
    // Prototype keys in a header are plain data: a genuine signature still verifies, nothing is polluted.
    for (const header of [
      JSON.parse('{"__proto__":{"alg":"none","kid":"x"}}'),
      JSON.parse('{"constructor":{"prototype":{"alg":"none"}}}'),
    ] as Array<Record<string, unknown>>) {
      expect([200, 401], JSON.stringify(header)).toContain(
        (await answer(await es256Token(es256, header, claims(staff.id)))).status,
      );
      expect([200, 401], JSON.stringify(header)).toContain(
        (await answer(hmacToken({ alg: 'HS256', ...header }, claims(staff.id), TEST_JWT_SECRET))).status,
      );
      expect(({} as Record<string, unknown>).alg).toBeUndefined();
    }
  });

  it('a 64 KiB header, a 64 KiB kid and a deeply nested header are refused fast with a 401', async () => {
    const big = 'A'.repeat(64 * 1024);
    const nested = `{"alg":"ES256","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const tokens = [
      await es256Token(attacker, { kid: 'x', padding: big }, claims(staff.id)),
      await es256Token(attacker, { kid: big }, claims(staff.id)),
      hmacToken({ alg: 'HS256', padding: big }, claims(staff.id), 'wrong-secret'),
      `${b64url(nested)}.${b64url(claims(staff.id))}.sig`,
      hmacToken({ alg: 'HS256' }, claims(staff.id, { padding: big }), 'wrong-secret'),
      `Bearer ${big}`.slice(7),
    ];
    const hits = jwks.hits;
    for (const token of tokens) {
      const started = performance.now();
      expect((await answer(token)).status, token.slice(0, 40)).toBe(401);
      expect(performance.now() - started, 'a refusal takes no noticeable time').toBeLessThan(500);
    }
    expect(jwks.hits - hits).toBeLessThanOrEqual(1);
  });

  it('over a real socket, a 64 KiB Authorization header is refused by the HTTP server (431), never a 5xx', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await fetch(`${address}/v1/me`, {
        headers: { authorization: `Bearer ${'A'.repeat(64 * 1024)}` },
      });
      expect(response.status).toBe(431);
    } finally {
      await t.app.server.close();
    }
  });
});

describe('keys the token names itself', () => {
  it('`jku`, `x5u`, `x5c` and an embedded `jwk` are never fetched or trusted', async () => {
    const hits = jwks.hits;
    const headers: Array<Record<string, unknown>> = [
      { kid: attacker.kid, jku: `${trap.url}/jwks.json` },
      { kid: es256.kid, jku: `${trap.url}/jwks.json` },
      { kid: attacker.kid, x5u: `${trap.url}/cert.pem` },
      { kid: attacker.kid, jwk: attacker.publicJwk },
      { kid: es256.kid, jwk: attacker.publicJwk },
      { jwk: attacker.publicJwk },
      { kid: es256.kid, x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] },
      { kid: attacker.kid, jku: `${trap.url}/a`, x5u: `${trap.url}/b`, jwk: attacker.publicJwk },
    ];
    for (const header of headers) {
      expect(
        await answer(await es256Token(attacker, header, claims(staff.id)), '/v1/admin/roles'),
        JSON.stringify(header).slice(0, 80),
      ).toEqual(invalidToken);
    }
    // A fetch that never happens has no event to wait for: a while without one is the proof.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(trap.hits).toEqual([]);
    expect(jwks.hits - hits).toBeLessThanOrEqual(1);
  });
});

describe('claims a user can edit grant nothing', () => {
  const EDITABLE: Array<Record<string, unknown>> = [
    { role: 'service_role' },
    { role: 'owner' },
    { user_metadata: { role: 'owner', roles: ['owner'], permissions: ['*'], is_admin: true } },
    {
      app_metadata: {
        provider: 'email',
        role: 'owner',
        roles: ['owner', 'admin'],
        permissions: ['*'],
        claims_admin: true,
      },
    },
    { permissions: ['*'], roles: ['owner'], is_admin: true, admin: true, scope: 'admin *' },
    { 'https://hasura.io/jwt/claims': { 'x-hasura-default-role': 'admin', 'x-hasura-allowed-roles': ['admin'] } },
    { amr: [{ method: 'password' }], aal: 'aal2', is_anonymous: false, session_id: 'owner' },
  ];

  it('no permission, no role and no staff route for HS256 or ES256 tokens carrying role-like claims', async () => {
    for (const extra of EDITABLE) {
      const user = await createUser(t.db);
      for (const token of [
        await signToken({ sub: user.id, claims: extra }),
        await signAsymmetric(es256, { sub: user.id, claims: extra }),
      ]) {
        expect(await answer(token, '/v1/me/permissions'), JSON.stringify(extra)).toEqual({
          status: 200,
          body: { permissions: [], roles: [] },
        });
        expect(await answer(token, '/v1/admin/roles'), JSON.stringify(extra)).toEqual({
          status: 403,
          body: { error: 'forbidden', details: { perm: 'roles.read' } },
        });
      }
      expect(await t.db.selectFrom('user_roles').select('role_id').where('user_id', '=', user.id).execute()).toEqual(
        [],
      );
    }
  });

  it("a token claiming a staff member's email is still its own subject, with its own (no) permissions", async () => {
    const impostor = randomUUID();
    const token = await signToken({ sub: impostor, email: staff.email });
    expect(await answer(token, '/v1/me/permissions')).toEqual({ status: 200, body: { permissions: [], roles: [] } });
    expect((await answer(token, '/v1/admin/roles')).status).toBe(403);
  });
});

describe('claims the service keeps', () => {
  it('text no row can hold (U+0000, a lone surrogate, line breaks, control characters, past its length) is 401 `invalid_token` on every guarded area: stored nowhere, logged nowhere', async () => {
    const captured = captureLog();
    const logged = await startTestApp({ log: captured.log });
    try {
      const marker = 'claim-marker';
      const bad = [
        `a\u0000${marker}@x.test`,
        `a\ud800${marker}@x.test`,
        `a\r\n${marker}@x.test`,
        `a\u2028${marker}@x.test`,
        `a\u0007${marker}@x.test`,
      ];
      const tokens = [
        ...[...bad, `${'a'.repeat(320)}${marker}@x.test`].map((email) => ({ email })),
        ...bad.map((session_id) => ({ claims: { session_id } })),
        ...bad.map((provider) => ({ claims: { app_metadata: { provider } } })),
      ];
      for (const options of tokens) {
        const sub = randomUUID();
        const token = await signToken({ sub, ...options });
        for (const url of ['/v1/me', '/v1/me/permissions', '/v1/admin/roles']) {
          const response = await logged.request({ method: 'GET', url, token });
          expect(
            { status: response.statusCode, body: response.json() },
            `${url} ${JSON.stringify(options).slice(0, 60)}`,
          ).toEqual(invalidToken);
        }
        expect(await logged.db.selectFrom('users').select('id').where('id', '=', sub).execute()).toEqual([]);
      }
      expect(captured.text()).not.toContain(marker);
      // A well-formed address is kept as given.
      const sub = randomUUID();
      expect(
        (
          await logged.request({
            method: 'GET',
            url: '/v1/me',
            token: await signToken({ sub, email: 'Player.One@example.test' }),
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await logged.close();
    }
  });
});

describe('time, audience and issuer, exactly as tokens.ts checks them', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('exp, nbf and iat within the 30 s skew pass; beyond it, or malformed, 401 `invalid_token`', async () => {
    const sign = (extra: Record<string, unknown>) =>
      hmacToken({ alg: 'HS256', typ: 'JWT' }, { ...claims(staff.id), ...extra }, TEST_JWT_SECRET);
    expect((await answer(sign({ exp: now() - 10 }))).status).toBe(200);
    expect(await answer(sign({ exp: now() - 60 }))).toEqual(invalidToken);
    expect((await answer(sign({ nbf: now() + 10 }))).status).toBe(200);
    expect(await answer(sign({ nbf: now() + 60 }))).toEqual(invalidToken);
    for (const exp of [String(now() + 3600), null, true, [now() + 3600], { $gt: 0 }, Number.NaN]) {
      expect(await answer(sign({ exp })), `exp ${JSON.stringify(exp)}`).toEqual(invalidToken);
    }
    // `iat` in the future past the skew: a token that would count as issued after every "sign out everywhere".
    expect((await answer(sign({ iat: now() + 10 }))).status).toBe(200);
    expect(await answer(sign({ iat: now() + 60 }))).toEqual(invalidToken);
    expect(await answer(sign({ iat: now() + 365 * 86_400 }))).toEqual(invalidToken);
    expect(
      await answer(
        await signAsymmetric(es256, { sub: staff.id, claims: { iat: now() + 365 * 86_400 } }),
        '/v1/admin/roles',
      ),
    ).toEqual(invalidToken);
    for (const sub of [123, null, '', 'admin', `${staff.id} `, [staff.id], { id: staff.id }]) {
      expect(await answer(sign({ sub })), `sub ${JSON.stringify(sub)}`).toEqual(invalidToken);
    }
  });

  it('`aud` must be or include `authenticated` (401 `invalid_audience` otherwise); `iss` is not checked (the key is the issuer)', async () => {
    const sign = (extra: Record<string, unknown>) =>
      hmacToken({ alg: 'HS256', typ: 'JWT' }, { ...claims(staff.id), ...extra }, TEST_JWT_SECRET);
    for (const aud of ['anon', 'service_role', 'Authenticated', ['anon'], [], '']) {
      expect(await answer(sign({ aud })), `aud ${JSON.stringify(aud)}`).toEqual({
        status: 401,
        body: { error: 'invalid_audience' },
      });
    }
    expect((await answer(sign({ aud: ['anon', 'authenticated'] }))).status).toBe(200);
    for (const iss of ['https://evil.example/auth/v1', undefined]) {
      expect((await answer(sign({ iss }))).status, `iss ${iss}`).toBe(200);
    }
  });
});

// Last: these move the wall clock forward, and jose's cache remembers the (fake) fetch time.
describe('the key set', () => {
  it('a flood of unknown key ids fetches the key set once per cooldown, however many and however concurrent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    vi.setSystemTime(t0 + JWKS_REFETCH_COOLDOWN_MS + 1_000);
    const hits = jwks.hits;
    const flood = async (count: number) => {
      const answers = await Promise.all(
        Array.from({ length: count }, async () =>
          answer(await es256Token(attacker, { kid: randomUUID() }, claims(staff.id))),
        ),
      );
      for (const one of answers) expect(one).toEqual(invalidToken);
    };
    await flood(50);
    expect(jwks.hits - hits).toBe(1);
    await flood(50);
    vi.setSystemTime(t0 + 2 * JWKS_REFETCH_COOLDOWN_MS);
    for (let i = 0; i < 20; i += 1) await flood(1);
    expect(jwks.hits - hits).toBe(1);
    // The published keys still work throughout, from the cache.
    expect((await answer(await signAsymmetric(rs256, { sub: staff.id }), '/v1/admin/roles')).status).toBe(200);
    expect(jwks.hits - hits).toBe(1);
  });

  it('rotation: a newly published key is taken after the cooldown; a removed key stops validating once the cache is refreshed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const at = (seconds: number) => vi.setSystemTime(t0 + seconds * 1000);
    const fresh = await makeSigningKey('ES256', `rotated-${randomUUID().slice(0, 8)}`);
    const status = async (key: SigningKey) =>
      (await answer(await signAsymmetric(key, { sub: staff.id }), '/v1/admin/roles')).status;

    at(100); // well past any earlier fetch's cooldown
    jwks.publish([es256, rs256, fresh]);
    const hits = jwks.hits;
    expect(await status(fresh)).toBe(200);
    expect(jwks.hits - hits).toBe(1);

    // The provider drops the old ES256 key. Cached keys serve until the cache is refreshed (jose: 10 minutes).
    jwks.publish([rs256, fresh]);
    at(200);
    expect(await status(es256)).toBe(200);
    at(100 + 601);
    expect(await status(es256)).toBe(401);
    expect(jwks.hits - hits).toBe(2);
    expect(await status(fresh)).toBe(200);
    expect(await status(rs256)).toBe(200);
    expect(jwks.hits - hits).toBe(2);
    jwks.publish([es256, rs256]);
  });
});
