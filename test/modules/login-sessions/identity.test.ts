import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, requestIdOf } from '../../helpers/expectations.js';
import { goTrueError, startGoTrueServer, type GoTrueServer } from '../../helpers/gotrue-server.js';
import { signToken, TEST_JWT_SECRET } from '../../helpers/tokens.js';

/**
 * A player revoking one of their login sessions with the `gotrue` identity provider: GoTrue is
 * asked to end that session (its refresh tokens), and when it refuses or fails nothing changes
 * here (502, as staff sign-out).
 */

const SERVICE_KEY = 'gotrue-service-role-key-for-login-sessions-0123456789';

let gotrue: GoTrueServer;
let t: TestApp;

beforeAll(async () => {
  gotrue = await startGoTrueServer({ serviceKey: SERVICE_KEY, jwtSecret: TEST_JWT_SECRET, prefix: '/auth/v1' });
  t = await startTestApp({
    config: { identityAdminUrl: gotrue.url, identityServiceKey: SERVICE_KEY, identityTimeoutMs: 300 },
  });
});
beforeEach(() => gotrue.behave({ kind: 'normal' }));
afterAll(async () => {
  await t.close();
  await gotrue.close();
});

/** A player GoTrue knows, signed in twice there; each session used once here. */
async function playerWithTwoGoTrueSessions() {
  const user: TestUser = await createUser(t.db);
  gotrue.addUser({ id: user.id, email: user.email });
  const sessions = [gotrue.addSession(user.id), gotrue.addSession(user.id)];
  const [laptop, phone] = await Promise.all(
    sessions.map(async (id) => ({
      id,
      token: await signToken({ sub: user.id, email: user.email, claims: { session_id: id } }),
    })),
  );
  for (const session of [laptop!, phone!])
    expect((await t.request({ method: 'GET', url: '/v1/me', token: session.token })).statusCode).toBe(200);
  return { user, laptop: laptop!, phone: phone! };
}

const revoke = (token: string, sessionId: string) =>
  t.request({ method: 'DELETE', url: `/v1/me/sessions/${sessionId}`, token });
const logouts = () => gotrue.requests.filter((r) => r.path.startsWith('/auth/v1/logout'));

describe('with GoTrue answering', () => {
  it('ends that session at GoTrue (scope local, a token of that session), then refuses its tokens here', async () => {
    const { user, laptop, phone } = await playerWithTwoGoTrueSessions();
    const before = logouts().length;
    expect((await revoke(phone.token, laptop.id)).statusCode).toBe(204);

    expect(gotrue.sessionsOf(user.id)).toEqual([phone.id]);
    const sent = logouts().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/auth/v1/logout?scope=local');
    expect((await t.request({ method: 'GET', url: '/v1/me', token: laptop.token })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: phone.token })).statusCode).toBe(200);
  });

  it('a session GoTrue no longer has (404 session_not_found) still ends here', async () => {
    const { user, laptop, phone } = await playerWithTwoGoTrueSessions();
    gotrue.behave({ kind: 'answer', status: 404, body: goTrueError(404, 'session_not_found', 'Session not found') });
    expect((await revoke(phone.token, laptop.id)).statusCode).toBe(204);
    gotrue.behave({ kind: 'normal' });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: laptop.token })).statusCode).toBe(401);
    expect(
      await t.db.selectFrom('revoked_sessions').select('session_id').where('user_id', '=', user.id).execute(),
    ).toEqual([{ session_id: laptop.id }]);
  });

  it('a token-family session (no session_id claim) is not sent to GoTrue', async () => {
    const user = await createUser(t.db);
    gotrue.addUser({ id: user.id, email: user.email });
    const familyToken = await signToken({ sub: user.id, claims: { session_id: undefined } });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: familyToken })).statusCode).toBe(200);
    const { data } = (await t.request({ method: 'GET', url: '/v1/me/sessions', token: familyToken })).json() as {
      data: Array<{ session_id: string }>;
    };
    const before = gotrue.requests.length;
    expect((await revoke(familyToken, data[0]!.session_id)).statusCode).toBe(204);
    expect(gotrue.requests.length).toBe(before);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: familyToken })).statusCode).toBe(401);
  });
});

describe('502 auth_service_error when GoTrue refuses, fails or hangs', () => {
  const failures = [
    { name: 'a refusal', behaviour: { kind: 'answer', status: 403, body: goTrueError(403, 'bad_jwt', 'invalid JWT') } },
    {
      name: 'a server error',
      behaviour: { kind: 'answer', status: 500, body: goTrueError(500, 'unexpected_failure', 'boom') },
    },
    { name: 'a hang past the timeout', behaviour: { kind: 'hang' } },
  ] as const;

  it.each(failures)(
    'on $name: 502, the session lives on here and at GoTrue, nothing recorded',
    async ({ behaviour }) => {
      const { user, laptop, phone } = await playerWithTwoGoTrueSessions();
      gotrue.behave(behaviour);
      const response = await revoke(phone.token, laptop.id);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toStrictEqual({
        error: 'auth_service_error',
        details: { operation: 'sign out session' },
      });
      expect(response.body).not.toContain(SERVICE_KEY);
      gotrue.behave({ kind: 'normal' });

      expect(await t.db.selectFrom('revoked_sessions').selectAll().where('user_id', '=', user.id).execute()).toEqual(
        [],
      );
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
      expect((await t.request({ method: 'GET', url: '/v1/me', token: laptop.token })).statusCode).toBe(200);
      expect(gotrue.sessionsOf(user.id).sort()).toEqual([laptop.id, phone.id].sort());
    },
  );
});
