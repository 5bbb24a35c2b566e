import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import { createIdentityProvider } from '../../src/adapters/identity/create.js';
import { BAN_DURATION, GoTrueIdentityProvider } from '../../src/adapters/identity/gotrue.js';
import { IdentityServiceError, type IdentityProvider } from '../../src/adapters/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { captureLog, type CapturedLog } from '../helpers/captured-log.js';
import { goTrueError, startGoTrueServer, type GoTrueServer } from '../helpers/gotrue-server.js';
import { TEST_JWT_SECRET } from '../helpers/tokens.js';
import { closedPort } from '../helpers/ports.js';

const SERVICE_KEY = `service-role-${randomUUID()}`;
const HUNDRED_YEARS_MS = 876_000 * 3_600_000;

let gotrue: GoTrueServer;
let captured: CapturedLog;
let provider: GoTrueIdentityProvider;

function providerFor(options: { adminUrl?: string; timeoutMs?: number; jwtSecret?: string | undefined } = {}) {
  return new GoTrueIdentityProvider({
    // Trailing slashes, as an operator may well write the URL.
    adminUrl: options.adminUrl ?? `${gotrue.url}//`,
    serviceKey: SERVICE_KEY,
    timeoutMs: options.timeoutMs ?? 2_000,
    jwtSecret: 'jwtSecret' in options ? options.jwtSecret : TEST_JWT_SECRET,
    log: captured.log,
  });
}

beforeEach(async () => {
  gotrue = await startGoTrueServer({ serviceKey: SERVICE_KEY, jwtSecret: TEST_JWT_SECRET, prefix: '/auth/v1' });
  captured = captureLog();
  provider = providerFor();
});

afterEach(async () => {
  await gotrue.close();
});

function onlyRequest() {
  expect(gotrue.requests).toHaveLength(1);
  return gotrue.requests[0]!;
}

async function failureOf(call: Promise<unknown>): Promise<IdentityServiceError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(IdentityServiceError);
  return error as IdentityServiceError;
}

function warnLines() {
  return captured
    .lines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 40);
}

describe('fetchUser', () => {
  it('GETs /admin/users/{id} with the service key and maps the GoTrue user', async () => {
    const bannedUntil = new Date(Date.now() + 86_400_000).toISOString();
    const user = gotrue.addUser({
      email: 'ada@example.test',
      app_metadata: { provider: 'email', providers: ['email', 'google'] },
      banned_until: bannedUntil,
      email_confirmed_at: '2024-01-02T03:04:05Z',
      last_sign_in_at: '2024-02-03T04:05:06Z',
      created_at: '2023-12-01T00:00:00Z',
    });

    const account = await provider.fetchUser(user.id);

    expect(account).toEqual({
      id: user.id,
      email: 'ada@example.test',
      providers: ['email', 'google'],
      banned_until: bannedUntil,
      email_confirmed_at: '2024-01-02T03:04:05Z',
      last_sign_in_at: '2024-02-03T04:05:06Z',
      created_at: '2023-12-01T00:00:00Z',
    });
    expect(onlyRequest()).toEqual({
      method: 'GET',
      path: `/auth/v1/admin/users/${user.id}`,
      body: null,
      bearerIsServiceKey: true,
      apikeyIsServiceKey: true,
      bearer: SERVICE_KEY,
      contentType: null,
    });
    expect(warnLines()).toEqual([]);
  });

  it('takes providers from identities when app_metadata lists none; an empty email, an expired ban and absent times read as null', async () => {
    const user = gotrue.addUser({
      email: '',
      app_metadata: {},
      banned_until: '2001-01-01T00:00:00Z',
      email_confirmed_at: undefined,
      last_sign_in_at: undefined,
    });
    user.identities = [
      { ...user.identities[0]!, provider: 'github' },
      { ...user.identities[0]!, identity_id: randomUUID(), provider: 'discord' },
      { ...user.identities[0]!, identity_id: randomUUID(), provider: 'github' },
    ];

    const account = await provider.fetchUser(user.id);

    expect(account).toEqual({
      id: user.id,
      email: null,
      providers: ['github', 'discord'],
      banned_until: null,
      email_confirmed_at: null,
      last_sign_in_at: null,
      created_at: user.created_at,
    });
  });

  it('falls back to app_metadata.provider when there are neither providers nor identities', async () => {
    const user = gotrue.addUser({ app_metadata: { provider: 'phone' }, identities: [] });
    expect((await provider.fetchUser(user.id))?.providers).toEqual(['phone']);
  });

  it('returns null when GoTrue has no such user (404 user_not_found)', async () => {
    const id = randomUUID();
    expect(await provider.fetchUser(id)).toBeNull();
    expect(onlyRequest().path).toBe(`/auth/v1/admin/users/${id}`);
    expect(warnLines()).toEqual([]);
  });

  it('URL-encodes the id; GoTrue answers 404 validation_failed for a non-UUID id, which is no account either', async () => {
    expect(await provider.fetchUser('../users?x=1 y')).toBeNull();
    expect(onlyRequest().path).toBe('/auth/v1/admin/users/..%2Fusers%3Fx%3D1%20y');
  });

  it('a 200 that is not a GoTrue user is a failure with that status', async () => {
    gotrue.behave({ kind: 'answer', status: 200, body: { hello: 'world' } });
    const error = await failureOf(provider.fetchUser(randomUUID()));
    expect(error.operation).toBe('fetchUser');
    expect(error.status).toBe(200);
    expect(warnLines()).toHaveLength(1);
  });
});

describe('banUser and unbanUser', () => {
  it('bans with PUT /admin/users/{id} { ban_duration: "876000h" } and lifts it with "none"', async () => {
    const user = gotrue.addUser();

    await provider.banUser(user.id);

    const ban = onlyRequest();
    expect(ban).toMatchObject({
      method: 'PUT',
      path: `/auth/v1/admin/users/${user.id}`,
      body: { ban_duration: BAN_DURATION },
      bearerIsServiceKey: true,
      apikeyIsServiceKey: true,
      contentType: 'application/json',
    });
    expect(BAN_DURATION).toBe('876000h');
    const bannedUntil = Date.parse(gotrue.user(user.id)!.banned_until!);
    expect(Math.abs(bannedUntil - (Date.now() + HUNDRED_YEARS_MS))).toBeLessThan(60_000);
    expect((await provider.fetchUser(user.id))?.banned_until).toBe(gotrue.user(user.id)!.banned_until);

    await provider.unbanUser(user.id);

    expect(gotrue.requests[2]).toMatchObject({
      method: 'PUT',
      path: `/auth/v1/admin/users/${user.id}`,
      body: { ban_duration: 'none' },
      bearerIsServiceKey: true,
      apikeyIsServiceKey: true,
      contentType: 'application/json',
    });
    expect(gotrue.user(user.id)!.banned_until).toBeUndefined();
    expect((await provider.fetchUser(user.id))?.banned_until).toBeNull();
  });

  it('banning a user GoTrue does not have is a refusal (404), not a success', async () => {
    const error = await failureOf(provider.banUser(randomUUID()));
    expect(error).toMatchObject({ operation: 'banUser', status: 404 });
    expect(error.message).toContain('user_not_found');
  });
});

describe('signOut', () => {
  it('ends every session with POST /logout?scope=global as the user: apikey is the service key, the bearer a short token for the user', async () => {
    const user = gotrue.addUser();
    const other = gotrue.addUser();
    gotrue.addSession(user.id);
    gotrue.addSession(user.id);
    const othersSession = gotrue.addSession(other.id);

    await provider.signOut(user.id);

    const request = onlyRequest();
    expect(request).toMatchObject({
      method: 'POST',
      path: '/auth/v1/logout?scope=global',
      body: null,
      apikeyIsServiceKey: true,
      bearerIsServiceKey: false,
    });
    const { payload } = await jwtVerify(request.bearer!, new TextEncoder().encode(TEST_JWT_SECRET), {
      algorithms: ['HS256'],
      audience: 'authenticated',
    });
    expect(payload.sub).toBe(user.id);
    expect(payload.role).toBe('authenticated');
    expect(payload).not.toHaveProperty('session_id');
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(60);
    expect(gotrue.sessionsOf(user.id)).toEqual([]);
    expect(gotrue.sessionsOf(other.id)).toEqual([othersSession]);
  });

  it('ends one session with scope=local and that session_id in the token', async () => {
    const user = gotrue.addUser();
    const ended = gotrue.addSession(user.id);
    const kept = gotrue.addSession(user.id);

    await provider.signOut(user.id, ended);

    const request = onlyRequest();
    expect(request).toMatchObject({ method: 'POST', path: '/auth/v1/logout?scope=local', apikeyIsServiceKey: true });
    expect(decodeJwt(request.bearer!)).toMatchObject({ sub: user.id, session_id: ended });
    expect(gotrue.sessionsOf(user.id)).toEqual([kept]);
  });

  it('a session GoTrue no longer has, or an account it no longer has, leaves nothing to end: success', async () => {
    const user = gotrue.addUser();
    await provider.signOut(user.id, randomUUID());
    await provider.signOut(randomUUID());
    expect(gotrue.requests.map((request) => request.path)).toEqual([
      '/auth/v1/logout?scope=local',
      '/auth/v1/logout?scope=global',
    ]);
    expect(warnLines()).toEqual([]);
  });

  it('a token GoTrue does not accept (secrets differ) is a refusal with its status', async () => {
    const user = gotrue.addUser();
    gotrue.addSession(user.id);
    const mismatched = providerFor({ jwtSecret: 'not-the-secret-gotrue-signs-tokens-with-0123456789' });

    const error = await failureOf(mismatched.signOut(user.id));

    expect(error).toMatchObject({ operation: 'signOut', status: 403 });
    expect(error.message).toContain('bad_jwt');
    expect(gotrue.sessionsOf(user.id)).toHaveLength(1);
  });

  it('without JWT_SECRET it cannot act for the user: a failure with no status, and no request sent', async () => {
    const withoutSecret = providerFor({ jwtSecret: undefined });
    const error = await failureOf(withoutSecret.signOut(gotrue.addUser().id));
    expect(error).toMatchObject({ operation: 'signOut', status: null });
    expect(error.message).toContain('JWT_SECRET');
    expect(gotrue.requests).toEqual([]);
    expect(warnLines()).toHaveLength(1);
  });
});

describe('deleteUser', () => {
  it('DELETEs /admin/users/{id} with { should_soft_delete: false }; the account and its sessions are gone', async () => {
    const user = gotrue.addUser();
    gotrue.addSession(user.id);

    await provider.deleteUser(user.id);

    expect(onlyRequest()).toMatchObject({
      method: 'DELETE',
      path: `/auth/v1/admin/users/${user.id}`,
      body: { should_soft_delete: false },
      bearerIsServiceKey: true,
      apikeyIsServiceKey: true,
      contentType: 'application/json',
    });
    expect(gotrue.user(user.id)).toBeUndefined();
    expect(gotrue.sessionsOf(user.id)).toEqual([]);
  });

  it('an account GoTrue no longer has (404 user_not_found) counts as removed', async () => {
    const user = gotrue.addUser();
    await provider.deleteUser(user.id);
    await provider.deleteUser(user.id);
    expect(gotrue.requests).toHaveLength(2);
    expect(warnLines()).toEqual([]);
  });
});

describe('a 404 that does not come from GoTrue (a wrong base URL, a gateway) is a failure, not "already gone"', () => {
  it.each([
    ['deleteUser', (identity: IdentityProvider) => identity.deleteUser(randomUUID())],
    ['fetchUser', (identity: IdentityProvider) => identity.fetchUser(randomUUID())],
  ] as const)('%s', async (operation, call) => {
    const wrongBase = providerFor({ adminUrl: gotrue.url.replace('/auth/v1', '/wrong') });
    const error = await failureOf(call(wrongBase));
    expect(error).toMatchObject({ operation, status: 404 });
    expect(gotrue.requests[0]!.path.startsWith('/wrong/admin/users/')).toBe(true);
  });
});

const operations = [
  ['fetchUser', (identity: IdentityProvider, id: string) => identity.fetchUser(id)],
  ['banUser', (identity: IdentityProvider, id: string) => identity.banUser(id)],
  ['unbanUser', (identity: IdentityProvider, id: string) => identity.unbanUser(id)],
  ['signOut', (identity: IdentityProvider, id: string) => identity.signOut(id)],
  ['deleteUser', (identity: IdentityProvider, id: string) => identity.deleteUser(id)],
] as const;

describe.each(operations)('%s when GoTrue refuses, fails, hangs or cannot be reached', (operation, call) => {
  function expectOneWarn(status: number | null) {
    const lines = warnLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ identity_operation: operation, provider_status: status });
    expect(typeof lines[0]!.duration_ms).toBe('number');
    expect(captured.text()).not.toContain(SERVICE_KEY);
  }

  it.each([
    [403, goTrueError(403, 'not_admin', 'User not allowed')],
    [422, goTrueError(422, 'validation_failed', 'Unprocessable')],
    [500, goTrueError(500, 'unexpected_failure', 'Database error loading user')],
  ])('answers %i: IdentityServiceError with that status, one warn line', async (status, body) => {
    gotrue.behave({ kind: 'answer', status, body });
    const user = gotrue.addUser();

    const error = await failureOf(call(provider, user.id));

    expect(error).toMatchObject({ operation, status });
    expect(error.message).toContain(body.error_code);
    expect(error.message).not.toContain(SERVICE_KEY);
    expectOneWarn(status);
  });

  it('does not answer within the timeout: IdentityServiceError with no status', async () => {
    gotrue.behave({ kind: 'hang' });
    const started = Date.now();

    const error = await failureOf(call(providerFor({ timeoutMs: 200 }), gotrue.addUser().id));

    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(2_000);
    expect(error).toMatchObject({ operation, status: null });
    expect(error.message).toContain('200 ms');
    expect(gotrue.requests).toHaveLength(1);
    expectOneWarn(null);
    expect(warnLines()[0]!.duration_ms as number).toBeGreaterThanOrEqual(190);
  });

  it('cannot be reached (connection refused): IdentityServiceError with no status', async () => {
    const unreachable = providerFor({ adminUrl: `http://127.0.0.1:${await closedPort()}/auth/v1` });

    const error = await failureOf(call(unreachable, randomUUID()));

    expect(error).toMatchObject({ operation, status: null });
    expect(error.message).toContain('ECONNREFUSED');
    expectOneWarn(null);
  });

  it('echoes the service key back in its error: neither the error nor the log carries it', async () => {
    gotrue.behave({ kind: 'answer', status: 401, body: goTrueError(401, 'bad_jwt', `invalid JWT: ${SERVICE_KEY}`) });

    const error = await failureOf(call(provider, gotrue.addUser().id));

    expect(error.status).toBe(401);
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(SERVICE_KEY);
    expectOneWarn(401);
  });
});

describe('createIdentityProvider', () => {
  it('picks local when no admin URL is configured', async () => {
    const testApp = await startTestApp();
    try {
      expect(testApp.kernel.identity.kind).toBe('local');
    } finally {
      await testApp.close();
    }
  });

  it('picks gotrue when IDENTITY_ADMIN_URL is set, wired with the configured key and JWT secret', async () => {
    const testApp = await startTestApp({
      config: { identityAdminUrl: gotrue.url, identityServiceKey: SERVICE_KEY, identityTimeoutMs: 1_000 },
    });
    try {
      expect(testApp.kernel.identity.kind).toBe('gotrue');
      const user = gotrue.addUser();
      const session = gotrue.addSession(user.id);
      expect((await testApp.kernel.identity.fetchUser(user.id))?.email).toBe(user.email);
      await testApp.kernel.identity.signOut(user.id, session);
      expect(gotrue.requests.map((request) => [request.path, request.apikeyIsServiceKey])).toEqual([
        [`/auth/v1/admin/users/${user.id}`, true],
        ['/auth/v1/logout?scope=local', true],
      ]);
      expect(gotrue.sessionsOf(user.id)).toEqual([]);
    } finally {
      await testApp.close();
    }
  });

  it('uses the configured timeout', async () => {
    gotrue.behave({ kind: 'hang' });
    const identity = createIdentityProvider(
      {
        identityAdminUrl: gotrue.url,
        identityServiceKey: SERVICE_KEY,
        identityTimeoutMs: 150,
        jwtSecret: TEST_JWT_SECRET,
      },
      captured.log,
    );
    const started = Date.now();
    const error = await failureOf(identity.fetchUser(randomUUID()));
    expect(error.status).toBeNull();
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('warns at start when gotrue is configured without JWT_SECRET (sign-out would fail)', () => {
    const identity = createIdentityProvider(
      { identityAdminUrl: gotrue.url, identityServiceKey: SERVICE_KEY, identityTimeoutMs: 1_000, jwtSecret: undefined },
      captured.log,
    );
    expect(identity.kind).toBe('gotrue');
    expect(warnLines()).toHaveLength(1);
    expect(String(warnLines()[0]!.msg)).toContain('JWT_SECRET');
  });
});
