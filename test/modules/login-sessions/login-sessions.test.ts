import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sightingIntervalMs } from '../../../src/kernel/principal.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { signToken } from '../../helpers/tokens.js';

/**
 * Login sessions on the embedded default (the `local` identity provider): what the principal
 * code records, the caller's list, revocation reaching the next request, and the cross-user 404.
 */

let t: TestApp & { testDatabase: Awaited<ReturnType<typeof startTestApp>>['testDatabase'] };
let staff: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['users.read', 'users.write', 'users.delete']);
});
afterAll(async () => {
  await t.close();
});

const LAPTOP = { ip: '203.0.113.7', ua: 'Mozilla/5.0 (laptop)' };
const PHONE = { ip: '198.51.100.20', ua: 'Mozilla/5.0 (phone)' };

/** A token of the user's session `sessionId` (the identity provider's `session_id` claim). */
const tokenOf = (user: TestUser, sessionId: string) =>
  signToken({ sub: user.id, email: user.email, claims: { session_id: sessionId } });

function call(method: 'GET' | 'DELETE', url: string, token: string, from = LAPTOP) {
  return t.request({ method, url, token, remoteAddress: from.ip, headers: { 'user-agent': from.ua } });
}
const me = (token: string, from = LAPTOP) => call('GET', '/v1/me', token, from);
const list = (token: string) => call('GET', '/v1/me/sessions', token);
const revoke = (token: string, sessionId: string) =>
  call('DELETE', `/v1/me/sessions/${encodeURIComponent(sessionId)}`, token);

const sessionRows = (userId: string) =>
  t.db.selectFrom('login_sessions').selectAll().where('user_id', '=', userId).orderBy('first_seen_at').execute();
const sessionRow = (userId: string, sessionId: string) =>
  t.db
    .selectFrom('login_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
const setLastSeen = (userId: string, sessionId: string, at: Date) =>
  t.db
    .updateTable('login_sessions')
    .set({ last_seen_at: at })
    .where('user_id', '=', userId)
    .where('session_id', '=', sessionId)
    .execute();
const revokedRows = (userId: string) =>
  t.db.selectFrom('revoked_sessions').selectAll().where('user_id', '=', userId).execute();

/** A player signed in on two devices: a laptop session and a phone session, each seen once. */
async function playerWithTwoSessions() {
  const user = await createUser(t.db);
  const laptop = { id: randomUUID(), token: '' };
  const phone = { id: randomUUID(), token: '' };
  laptop.token = await tokenOf(user, laptop.id);
  phone.token = await tokenOf(user, phone.id);
  expect((await me(laptop.token, LAPTOP)).statusCode).toBe(200);
  expect((await me(phone.token, PHONE)).statusCode).toBe(200);
  return { user, laptop, phone };
}

describe('recording', () => {
  it('the first request records the session with its address and user agent; the next ones within a minute write nothing', async () => {
    const user = await createUser(t.db);
    const sessionId = randomUUID();
    const token = await tokenOf(user, sessionId);
    const before = Date.now();
    expect((await me(token, LAPTOP)).statusCode).toBe(200);

    const first = await sessionRow(user.id, sessionId);
    expect(first).toMatchObject({ first_ip: LAPTOP.ip, last_ip: LAPTOP.ip, user_agent: LAPTOP.ua });
    expect(first!.first_seen_at.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(first!.last_seen_at).toEqual(first!.first_seen_at);

    // Another address right away: the row is left alone (no write per request).
    expect((await me(token, PHONE)).statusCode).toBe(200);
    expect(await sessionRow(user.id, sessionId)).toEqual(first);

    // 30 s ago is within the minute: still unchanged.
    const thirtySecondsAgo = new Date(Date.now() - 30_000);
    await setLastSeen(user.id, sessionId, thirtySecondsAgo);
    expect((await me(token, PHONE)).statusCode).toBe(200);
    expect(await sessionRow(user.id, sessionId)).toMatchObject({ last_seen_at: thirtySecondsAgo, last_ip: LAPTOP.ip });

    // Past the user's own interval (60-90 s): the next request moves the last sighting, address and agent; the first stay.
    await setLastSeen(user.id, sessionId, new Date(Date.now() - sightingIntervalMs(user.id) - 1_000));
    const movedAfter = Date.now();
    expect((await me(token, PHONE)).statusCode).toBe(200);
    const moved = await sessionRow(user.id, sessionId);
    expect(moved).toMatchObject({
      first_seen_at: first!.first_seen_at,
      first_ip: LAPTOP.ip,
      last_ip: PHONE.ip,
      user_agent: PHONE.ua,
    });
    expect(moved!.last_seen_at.getTime()).toBeGreaterThanOrEqual(movedAfter - 1_000);
  });

  it("a user's very first request creates the user and the session together", async () => {
    const sub = randomUUID();
    const sessionId = randomUUID();
    const response = await me(await signToken({ sub, claims: { session_id: sessionId } }));
    expect(response.statusCode).toBe(200);
    expect(await sessionRows(sub)).toEqual([
      expect.objectContaining({ session_id: sessionId, first_ip: LAPTOP.ip, user_agent: LAPTOP.ua }),
    ]);
  });

  it('a refused token is not "seen": a banned account or a revoked session records nothing', async () => {
    const banned = await createUser(t.db, [], { status: 'banned' });
    expect((await me(await tokenOf(banned, randomUUID()))).statusCode).toBe(403);
    expect(await sessionRows(banned.id)).toEqual([]);

    const user = await createUser(t.db);
    const sessionId = randomUUID();
    await t.db
      .insertInto('revoked_sessions')
      .values({ user_id: user.id, session_id: sessionId, revoked_by: null })
      .execute();
    expect((await me(await tokenOf(user, sessionId))).statusCode).toBe(401);
    expect(await sessionRows(user.id)).toEqual([]);
  });

  it('a token without session_id is a session of its own (its token family); revoking it refuses that token only', async () => {
    const user = await createUser(t.db);
    const now = Math.floor(Date.now() / 1000);
    const older = await signToken({ sub: user.id, claims: { session_id: undefined, iat: now - 10 } });
    const newer = await signToken({ sub: user.id, claims: { session_id: undefined, iat: now } });
    expect((await me(older)).statusCode).toBe(200);
    expect((await me(newer)).statusCode).toBe(200);
    expect((await me(older)).statusCode).toBe(200);

    const { data } = (await list(newer)).json() as { data: Array<{ session_id: string; current: boolean }> };
    expect(data).toHaveLength(2);
    for (const session of data) expect(session.session_id).toMatch(/^token-[0-9a-f]{32}$/);
    const olderSession = data.find((session) => !session.current)!;

    expect((await revoke(newer, olderSession.session_id)).statusCode).toBe(204);
    expect((await me(older)).json()).toEqual({ error: 'invalid_token' });
    expect((await me(newer)).statusCode).toBe(200);
  });
});

describe('GET /v1/me/sessions', () => {
  it("lists the caller's sessions, newest activity first, the current one marked", async () => {
    const { user, laptop, phone } = await playerWithTwoSessions();
    await setLastSeen(user.id, laptop.id, new Date(Date.now() - 5 * 60_000));
    const rows = await sessionRows(user.id);

    const response = await list(phone.token);
    expect(response.statusCode).toBe(200);
    const row = (id: string) => rows.find((r) => r.session_id === id)!;
    const view = (id: string, current: boolean) => ({
      session_id: id,
      first_seen_at: row(id).first_seen_at.toISOString(),
      last_seen_at: row(id).last_seen_at.toISOString(),
      ip: row(id).last_ip,
      first_ip: row(id).first_ip,
      user_agent: row(id).user_agent,
      device_authorization_id: null,
      current,
    });
    expect(response.json()).toStrictEqual({ data: [view(phone.id, true), view(laptop.id, false)] });
    expect(response.json().data[0]).toMatchObject({ ip: PHONE.ip, user_agent: PHONE.ua });

    // From the laptop, the laptop is current (the list itself moved its last sighting first).
    const fromLaptop = (await list(laptop.token)).json() as { data: Array<{ session_id: string; current: boolean }> };
    expect(fromLaptop.data.map((s) => [s.session_id, s.current])).toEqual([
      [laptop.id, true],
      [phone.id, false],
    ]);
  });

  it('leaves out sessions staff signed out, alone or with every session, and shows one again once it outlives a sign-out', async () => {
    const { user, laptop, phone } = await playerWithTwoSessions();
    const staffCut = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${user.id}/sign-out`,
      token: staff.token,
      payload: { session_id: laptop.id },
    });
    expect(staffCut.statusCode).toBe(204);
    expect((await list(phone.token)).json().data.map((s: { session_id: string }) => s.session_id)).toEqual([phone.id]);

    // "Sign out everywhere" 10 s ago ended the phone session too (last seen 20 s ago) …
    const tablet = randomUUID();
    await setLastSeen(user.id, phone.id, new Date(Date.now() - 20_000));
    await t.db
      .updateTable('users')
      .set({ tokens_valid_after: new Date(Date.now() - 10_000) })
      .where('id', '=', user.id)
      .execute();
    const tabletToken = await tokenOf(user, tablet);
    expect((await list(tabletToken)).json().data.map((s: { session_id: string }) => s.session_id)).toEqual([tablet]);

    // … until a token of it issued since comes along (the provider refreshed it): listed again.
    expect((await me(await tokenOf(user, phone.id))).statusCode).toBe(200);
    expect(
      (await list(tabletToken))
        .json()
        .data.map((s: { session_id: string }) => s.session_id)
        .sort(),
    ).toEqual([phone.id, tablet].sort());
  });

  it("needs a token (401) and shows only the caller's own sessions", async () => {
    expect((await t.request({ method: 'GET', url: '/v1/me/sessions' })).json()).toEqual({ error: 'missing_token' });
    const a = await playerWithTwoSessions();
    const b = await playerWithTwoSessions();
    const ids = (await list(b.laptop.token))
      .json()
      .data.map((s: { session_id: string }) => s.session_id)
      .sort();
    expect(ids).toEqual([b.laptop.id, b.phone.id].sort());
    expect(ids).not.toContain(a.laptop.id);
  });
});

describe('DELETE /v1/me/sessions/{sessionId}', () => {
  it('revokes one session: its next request is 401, the other session works, the revocation is recorded and audited', async () => {
    const { user, laptop, phone } = await playerWithTwoSessions();
    const response = await revoke(phone.token, laptop.id);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');

    expect((await me(laptop.token)).statusCode).toBe(401);
    expect((await me(laptop.token)).json()).toEqual({ error: 'invalid_token' });
    // A fresh token of the revoked session (a refresh) is refused too.
    expect((await me(await tokenOf(user, laptop.id))).statusCode).toBe(401);
    expect((await me(phone.token)).statusCode).toBe(200);

    expect(await revokedRows(user.id)).toEqual([
      expect.objectContaining({ session_id: laptop.id, revoked_by: user.id }),
    ]);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        actor_id: user.id,
        action: 'users.self_sign_out',
        target_type: 'user',
        target_id: user.id,
        ip: LAPTOP.ip,
        summary: { scope: 'session', session_id: laptop.id },
      }),
    ]);
    expect((await list(phone.token)).json().data.map((s: { session_id: string }) => s.session_id)).toEqual([phone.id]);
    // Already ended: no longer one of the caller's sessions.
    expect((await revoke(phone.token, laptop.id)).json()).toEqual({ error: 'not_found' });
  });

  it('revokes the current session: the same token is refused from the next request on', async () => {
    const { laptop, phone } = await playerWithTwoSessions();
    expect((await revoke(laptop.token, laptop.id)).statusCode).toBe(204);
    expect((await list(laptop.token)).statusCode).toBe(401);
    expect((await me(phone.token)).statusCode).toBe(200);
  });

  const refusals = [
    { name: "another user's session", target: (other: { laptop: { id: string } }) => other.laptop.id },
    { name: 'an unknown session', target: () => randomUUID() },
    { name: 'an id that is no UUID', target: () => 'not-a-session' },
  ];
  it.each(refusals)('404 not_found for $name, and nothing changes', async ({ target }) => {
    const caller = await playerWithTwoSessions();
    const other = await playerWithTwoSessions();
    const sessionId = target(other);
    const response = await revoke(caller.phone.token, sessionId);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toStrictEqual({ error: 'not_found' });
    expect(await revokedRows(caller.user.id)).toEqual([]);
    expect(await revokedRows(other.user.id)).toEqual([]);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    expect((await me(other.laptop.token)).statusCode).toBe(200);
  });

  it('400 SchemaError for a session id over 200 characters', async () => {
    const { phone } = await playerWithTwoSessions();
    const response = await revoke(phone.token, 'x'.repeat(201));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path: ['sessionId'] }));
  });

  it('reaches a second instance on the same database within a second', async () => {
    const other = await startTestApp({ database: await t.testDatabase!.openAnother() });
    try {
      const { laptop, phone } = await playerWithTwoSessions();
      expect((await other.request({ method: 'GET', url: '/v1/me', token: laptop.token })).statusCode).toBe(200);
      expect((await revoke(phone.token, laptop.id)).statusCode).toBe(204);
      // The other instance answers from memory until the revocation's notice reaches it over its
      // listener (docs/decisions/0009-user-caches-kept-exact-by-triggers.md: the window a request
      // in flight at the commit has anyway).
      await eventually(async () => {
        const refused = await other.request({ method: 'GET', url: '/v1/me', token: laptop.token });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toEqual({ error: 'invalid_token' });
      }, 1_000);
      expect((await other.request({ method: 'GET', url: '/v1/me', token: phone.token })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('GET /v1/admin/users/{id}/sessions', () => {
  it('lists every session of the user for users.read, ended ones with when they ended', async () => {
    const { user, laptop, phone } = await playerWithTwoSessions();
    expect((await revoke(phone.token, laptop.id)).statusCode).toBe(204);
    const revokedAt = (await revokedRows(user.id))[0]!.revoked_at;
    const response = await t.request({ method: 'GET', url: `/v1/admin/users/${user.id}/sessions`, token: staff.token });
    expect(response.statusCode).toBe(200);
    const byId = Object.fromEntries(
      (response.json().data as Array<{ session_id: string; revoked_at: string | null }>).map((s) => [s.session_id, s]),
    );
    expect(Object.keys(byId).sort()).toEqual([laptop.id, phone.id].sort());
    expect(byId[laptop.id]).toMatchObject({ revoked_at: revokedAt.toISOString(), ip: LAPTOP.ip });
    expect(byId[phone.id]).toMatchObject({ revoked_at: null, ip: PHONE.ip });
    expect(byId[phone.id]).not.toHaveProperty('current');
  });

  it('403 without users.read; 404 for an unknown user', async () => {
    const player = await createUser(t.db);
    const forbidden = await t.request({
      method: 'GET',
      url: `/v1/admin/users/${player.id}/sessions`,
      token: player.token,
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: 'forbidden', details: { perm: 'users.read' } });
    const unknown = await t.request({
      method: 'GET',
      url: `/v1/admin/users/${randomUUID()}/sessions`,
      token: staff.token,
    });
    expect(unknown.json()).toEqual({ error: 'not_found' });
  });
});

describe('deleting the user', () => {
  it("a hard delete removes the user's login sessions", async () => {
    const { user } = await playerWithTwoSessions();
    expect(await sessionRows(user.id)).toHaveLength(2);
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/users/${user.id}`,
      token: staff.token,
      payload: { reason: 'erasure request', hard: true },
    });
    expect(response.statusCode).toBe(204);
    expect(await sessionRows(user.id)).toEqual([]);
  });
});
