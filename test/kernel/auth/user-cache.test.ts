import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, ListenHandlers } from '../../../src/db/database.js';
import { sightingIntervalMs } from '../../../src/kernel/principal.js';
import { entryAgeCapMs, USER_CHANGE_CHANNEL, UserChanges } from '../../../src/kernel/auth/user-cache.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { signToken } from '../../helpers/tokens.js';
import { clockPast } from '../../helpers/waiting.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

/** Runs `write` with this session's triggers off (superuser only): the cache hears nothing of it. */
async function unnoticed(app: TestApp, write: (db: TestApp['db']) => Promise<unknown>): Promise<void> {
  await app.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await write(trx);
  });
}

describe('user change notices (migration 0032)', () => {
  let app: App;
  const heard: string[] = [];
  let stop: () => Promise<void>;

  beforeAll(async () => {
    app = await startTestApp();
    stop = await app.kernel.database.listen(USER_CHANGE_CHANNEL, {
      onMessage: (payload) => heard.push(payload),
      onResync: () => {},
    });
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });

  /** What `write` notified: notices arrive in commit order, so a marker sent after it closes the list. */
  async function noticesOf(write: () => Promise<unknown>): Promise<string[]> {
    heard.length = 0;
    await write();
    const marker = `marker-${Math.random()}`;
    await sql`SELECT pg_notify(${USER_CHANGE_CHANNEL}, ${marker})`.execute(app.db);
    await eventually(() => expect(heard).toContain(marker));
    return heard.filter((payload) => payload !== marker);
  }

  it('records a due sighting of the user and its session in one commit: one notice, both rows moved', async () => {
    const user = await createUser(app.db);
    const me = () => app.request({ method: 'GET', url: '/v1/me', token: user.token });
    expect((await me()).statusCode).toBe(200);
    const due = new Date(Date.now() - sightingIntervalMs(user.id) - 1_000);
    // Through noticesOf, so these writes' own notices are heard before the request's are counted.
    const makeDue = () =>
      noticesOf(async () => {
        await app.db.updateTable('users').set({ last_seen_at: due }).where('id', '=', user.id).execute();
        await app.db.updateTable('login_sessions').set({ last_seen_at: due }).where('user_id', '=', user.id).execute();
      });
    await makeDue();
    // Through noticesOf too: this sighting's notice may reach the listener after the request
    // has answered, and must not be counted as the next request's.
    expect(await noticesOf(async () => expect((await me()).statusCode).toBe(200))).toEqual([user.id]);

    // Two commits would be two notices (identical ones are merged only within a transaction).
    const before = Date.now();
    expect(await noticesOf(async () => expect((await me()).statusCode).toBe(200))).toEqual([]);
    await makeDue();
    expect(await noticesOf(async () => expect((await me()).statusCode).toBe(200))).toEqual([user.id]);
    const userRow = await app.db
      .selectFrom('users')
      .select('last_seen_at')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    const sessionRow = await app.db
      .selectFrom('login_sessions')
      .select('last_seen_at')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(userRow.last_seen_at!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(sessionRow.last_seen_at.getTime()).toBe(userRow.last_seen_at!.getTime());
  });

  it("names the user on every change to what the principal and the profile read (`profile:` when only the profile's own columns changed), and nobody on a write that changes nothing", async () => {
    const user = await createUser(app.db, ['users.read']);
    const role = await app.db
      .selectFrom('user_roles')
      .select('role_id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const cases: Array<[string, () => Promise<unknown>, string[]]> = [
      [
        'status',
        () => app.db.updateTable('users').set({ status: 'banned' }).where('id', '=', user.id).execute(),
        [user.id],
      ],
      [
        'email',
        () => app.db.updateTable('users').set({ email: 'new@example.test' }).where('id', '=', user.id).execute(),
        [user.id],
      ],
      [
        'sign-out instant',
        () => app.db.updateTable('users').set({ tokens_valid_after: new Date() }).where('id', '=', user.id).execute(),
        [user.id],
      ],
      [
        'last sighting',
        () =>
          app.db
            .updateTable('users')
            .set({ last_seen_at: new Date(Date.now() - 5_000) })
            .where('id', '=', user.id)
            .execute(),
        [user.id],
      ],
      [
        'profile edit',
        () =>
          app.db
            .updateTable('users')
            .set({
              display_name: 'Renamed',
              locale: 'de',
              timezone: 'Europe/Vienna',
              avatar_key: 'avatars/a.png',
              profile_updated_at: new Date(),
              updated_at: new Date(),
            })
            .where('id', '=', user.id)
            .execute(),
        [`profile:${user.id}`],
      ],
      [
        'profile edit to what it is',
        () => app.db.updateTable('users').set({ display_name: 'Renamed' }).where('id', '=', user.id).execute(),
        [],
      ],
      [
        'profile edit with another column',
        () =>
          app.db
            .updateTable('users')
            .set({ display_name: 'Renamed again', provider: 'elsewhere' })
            .where('id', '=', user.id)
            .execute(),
        [user.id],
      ],
      [
        'suppression of the address',
        () =>
          app.db
            .insertInto('email_suppressions')
            .values({ email: 'new@example.test', reason: 'unsubscribed', source: 'test', message_id: null })
            .execute(),
        [user.id],
      ],
      [
        'suppression lifted',
        () => app.db.deleteFrom('email_suppressions').where('email', '=', 'new@example.test').execute(),
        [user.id],
      ],
      [
        'suppression of another address',
        () =>
          app.db
            .insertInto('email_suppressions')
            .values({ email: 'someone-else@example.test', reason: 'bounced', source: 'test', message_id: null })
            .execute(),
        [],
      ],
      [
        'status set to what it is',
        () => app.db.updateTable('users').set({ status: 'banned' }).where('id', '=', user.id).execute(),
        [],
      ],
      [
        'grant expiry',
        () =>
          app.db
            .updateTable('user_roles')
            .set({ expires_at: new Date(Date.now() + 60_000) })
            .where('user_id', '=', user.id)
            .execute(),
        [user.id],
      ],
      [
        'revoked session',
        () =>
          app.db
            .insertInto('revoked_sessions')
            .values({ user_id: user.id, session_id: 's-1', revoked_by: null })
            .execute(),
        [user.id],
      ],
      [
        'login session',
        () =>
          app.db
            .insertInto('login_sessions')
            .values({
              user_id: user.id,
              session_id: 's-2',
              first_seen_at: new Date(),
              last_seen_at: new Date(),
              first_ip: null,
              last_ip: null,
              user_agent: null,
            })
            .execute(),
        [user.id],
      ],
      [
        'role permissions',
        () =>
          app.db
            .insertInto('role_permissions')
            .values({ role_id: role.role_id, permission_key: 'audit.read' })
            .execute(),
        ['*'],
      ],
      [
        'role name',
        () => app.db.updateTable('roles').set({ name: 'Renamed' }).where('id', '=', role.role_id).execute(),
        ['*'],
      ],
      ['grant removed', () => app.db.deleteFrom('user_roles').where('user_id', '=', user.id).execute(), [user.id]],
      [
        'rolled back',
        () =>
          app.db
            .transaction()
            .execute(async (trx) => {
              await trx.updateTable('users').set({ status: 'active' }).where('id', '=', user.id).execute();
              throw new Error('roll back');
            })
            .catch(() => undefined),
        [],
      ],
      ['account erased', () => app.db.deleteFrom('users').where('id', '=', user.id).execute(), [user.id]],
    ];
    for (const [what, write, expected] of cases) {
      expect({ what, notices: [...new Set(await noticesOf(write))] }).toEqual({ what, notices: expected });
    }
  });

  it('a truncate names everyone', async () => {
    expect(await noticesOf(() => sql`TRUNCATE revoked_sessions`.execute(app.db))).toEqual(['*']);
  });
});

describe('the principal and profile caches', () => {
  let a: App;
  let b: TestApp;
  let staff: TestUser;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ database: await a.testDatabase!.openAnother() });
    staff = await createUser(a.db, ['users.read', 'users.write', 'roles.write', 'roles.read']);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const me = (app: TestApp, token: string) => app.request({ method: 'GET', url: '/v1/me', token });
  /**
   * Resolves once `app`'s listener has heard every notice committed before the call (it hears
   * them in commit order): a read taken before a marker's notice is refused storage once the
   * notice has arrived.
   */
  const listenerCaughtUp = async (app: TestApp) => {
    const marker = `marker-${randomUUID()}`;
    const before = app.kernel.principals.generation;
    await sql`SELECT pg_notify(${USER_CHANGE_CHANNEL}, ${marker})`.execute(app.db);
    await eventually(() => {
      app.kernel.principals.set(marker, 'probe', {} as never, before);
      expect(app.kernel.principals.get(marker, 'probe')).toBeUndefined();
    });
  };
  /**
   * The first request of a session records it (a write, whose notice drops the entry); the
   * second is cached. In between, the listener's echo of the write (and of the user's creation)
   * is let through, so it cannot drop the second request's entry afterwards.
   */
  const warm = async (app: TestApp, token: string) => {
    expect((await me(app, token)).statusCode).toBe(200);
    await listenerCaughtUp(app);
    expect((await me(app, token)).statusCode).toBe(200);
  };
  const permissions = async (app: TestApp, token: string) =>
    (await app.request({ method: 'GET', url: '/v1/me/permissions', token })).json();

  it('answers a signed-in request from memory: a change nobody was told of is not seen until the entry is forgotten', async () => {
    const player = await createUser(a.db);
    await warm(a, player.token);
    await unnoticed(a, (db) => db.updateTable('users').set({ status: 'banned' }).where('id', '=', player.id).execute());
    expect((await me(a, player.token)).statusCode).toBe(200);
    a.kernel.principals.forget(player.id);
    expect((await me(a, player.token)).json()).toEqual({ error: 'forbidden', details: { reason: 'account_banned' } });
  });

  it('a ban made on one instance is refused by the other from its next request', async () => {
    const player = await createUser(a.db);
    await warm(b, player.token);
    expect(b.kernel.principals.size).toBeGreaterThan(0);
    const banned = await a.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/ban`,
      token: staff.token,
      payload: { reason: 'Cheating' },
    });
    expect(banned.statusCode, banned.body).toBe(204);
    const started = Date.now();
    await eventually(
      async () =>
        expect((await me(b, player.token)).json()).toEqual({
          error: 'forbidden',
          details: { reason: 'account_banned' },
        }),
      1_000,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("the writer's own next request already reads its write: sign out everywhere, then the old token at once", async () => {
    for (let round = 0; round < 10; round += 1) {
      const player = await createUser(a.db);
      const token = await signToken({
        sub: player.id,
        email: player.email,
        claims: { iat: Math.floor(Date.now() / 1000) - 5 },
      });
      await warm(a, token);
      const out = await a.request({
        method: 'POST',
        url: `/v1/admin/users/${player.id}/sign-out`,
        token: staff.token,
        payload: {},
      });
      expect(out.statusCode, out.body).toBeLessThan(300);
      expect((await me(a, token)).json()).toEqual({ error: 'invalid_token' });
    }
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    "a read made while the writer's transaction is still open is forgotten when it commits, not cached past it",
    async () => {
      const player = await createUser(a.db);
      await warm(a, player.token);
      await a.db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ status: 'banned' }).where('id', '=', player.id).execute();
        // The ban is not committed: this reads and keeps the active account, after the ban's notice was raised.
        a.kernel.principals.forget(player.id);
        expect((await me(a, player.token)).statusCode).toBe(200);
      });
      expect((await me(a, player.token)).json()).toEqual({ error: 'forbidden', details: { reason: 'account_banned' } });
    },
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    'no pooled connection listens (each would be woken by every notice); a session that did not ask hears no own notice',
    async () => {
      await warm(a, staff.token);
      const channels = await Promise.all(
        Array.from({ length: 5 }, () =>
          a.db
            .transaction()
            .execute((trx) => sql<{ channel: string }>`SELECT pg_listening_channels() AS channel`.execute(trx)),
        ),
      );
      expect(channels.flatMap((result) => result.rows)).toEqual([]);

      const client = new pg.Client({ connectionString: a.testDatabase!.url! });
      await client.connect();
      try {
        const notices: unknown[] = [];
        client.on('notice', (notice) => notices.push(notice));
        await client.query('UPDATE users SET display_name = $1 WHERE id = $2', ['Hand-run', staff.id]);
        expect(notices).toEqual([]);
        await client.query('SET platform_api.own_commit_notices = on');
        await client.query('UPDATE users SET display_name = $1 WHERE id = $2', ['Hand-run again', staff.id]);
        expect(notices).toMatchObject([
          { code: 'PA001', message: 'platform_api_user_changes', detail: `profile:${staff.id}` },
        ]);
      } finally {
        await client.end();
      }
    },
  );

  it('a permission taken from a role by hand-run SQL is gone on both instances', async () => {
    const holder = await createUser(a.db, ['audit.read', 'users.read']);
    expect((await permissions(a, holder.token)).permissions).toEqual(['audit.read', 'users.read']);
    expect((await permissions(b, holder.token)).permissions).toEqual(['audit.read', 'users.read']);
    await sql`DELETE FROM role_permissions WHERE permission_key = 'audit.read' AND role_id IN (SELECT role_id FROM user_roles WHERE user_id = ${holder.id})`.execute(
      a.db,
    );
    expect((await permissions(a, holder.token)).permissions).toEqual(['users.read']);
    await eventually(
      async () => expect((await permissions(b, holder.token)).permissions).toEqual(['users.read']),
      1_000,
    );
    expect((await b.request({ method: 'GET', url: '/v1/admin/audit', token: holder.token })).json()).toEqual({
      error: 'forbidden',
      details: { perm: 'audit.read' },
    });
  });

  it('the profile: read from memory, changed on one instance and shown by both, a suppression by hand shown at once', async () => {
    const player = await createUser(a.db);
    await warm(a, player.token);
    await warm(b, player.token);
    await unnoticed(a, (db) =>
      db.updateTable('users').set({ display_name: 'Unnoticed' }).where('id', '=', player.id).execute(),
    );
    expect((await me(a, player.token)).json().display_name).toBeNull();
    const renamed = await a.request({
      method: 'PATCH',
      url: '/v1/me',
      token: player.token,
      payload: { display_name: 'Renamed' },
    });
    expect(renamed.json().display_name).toBe('Renamed');
    expect((await me(a, player.token)).json().display_name).toBe('Renamed');
    await eventually(async () => expect((await me(b, player.token)).json().display_name).toBe('Renamed'), 1_000);
    expect((await me(a, player.token)).json().marketing_opt_in).toBe(true);
    await a.db
      .insertInto('email_suppressions')
      .values({ email: player.email, reason: 'complained', source: 'test', message_id: null })
      .execute();
    expect((await me(a, player.token)).json().marketing_opt_in).toBe(false);
    await eventually(async () => expect((await me(b, player.token)).json().marketing_opt_in).toBe(false), 1_000);
  });

  it('a profile edit keeps the principal on both instances: a ban nobody was told of stays unseen until an account change', async () => {
    const player = await createUser(a.db);
    await warm(a, player.token);
    await warm(b, player.token);
    await unnoticed(a, (db) => db.updateTable('users').set({ status: 'banned' }).where('id', '=', player.id).execute());
    const renamed = await a.request({
      method: 'PATCH',
      url: '/v1/me',
      token: player.token,
      payload: { display_name: 'Renamed', locale: 'de' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    // The profile was read again (it shows the row as stored, ban included); the principal was not.
    expect((await me(a, player.token)).json()).toMatchObject({ display_name: 'Renamed', status: 'banned' });
    await eventually(
      async () =>
        expect((await me(b, player.token)).json()).toMatchObject({ display_name: 'Renamed', status: 'banned' }),
      1_000,
    );
    await a.db
      .updateTable('users')
      .set({ email: `moved-${player.email}` })
      .where('id', '=', player.id)
      .execute();
    expect((await me(a, player.token)).json()).toEqual({ error: 'forbidden', details: { reason: 'account_banned' } });
    await eventually(
      async () =>
        expect((await me(b, player.token)).json()).toEqual({
          error: 'forbidden',
          details: { reason: 'account_banned' },
        }),
      1_000,
    );
  });

  it('a grant lapses at its expiry without any notice', async () => {
    const holder = await createUser(a.db);
    const role = await a.db
      .insertInto('roles')
      .values({ key: `lapsing-${holder.id.slice(0, 8)}`, name: 'Lapsing' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await a.db.insertInto('role_permissions').values({ role_id: role.id, permission_key: 'audit.read' }).execute();
    const expiresAt = new Date(Date.now() + 1_000);
    await a.db
      .insertInto('user_roles')
      .values({ user_id: holder.id, role_id: role.id, granted_by: null, reason: 'test', expires_at: expiresAt })
      .execute();
    await warm(a, holder.token);
    const before = await permissions(a, holder.token);
    expect(before).toEqual({
      permissions: ['audit.read'],
      roles: [{ key: `lapsing-${holder.id.slice(0, 8)}`, name: 'Lapsing', expires_at: expiresAt.toISOString() }],
    });
    await clockPast(expiresAt);
    expect(await permissions(a, holder.token)).toEqual({ permissions: [], roles: [] });
  });
});

describe('UserCache', () => {
  let resync: () => void = () => {};
  let heard: (payload: string) => void = () => {};
  let now = 0;
  const database = {
    kind: 'pglite',
    db: undefined as never,
    async listen(_channel: string, handlers: ListenHandlers) {
      resync = handlers.onResync;
      heard = handlers.onMessage;
      return async () => {};
    },
    async warm() {},
    poolUsage: () => [],
    async close() {},
  } satisfies Database;
  // Each entry's age cap is drawn; the tests say which draw comes next (0: the full 2 min).
  let draw = 0;
  const changes = new UserChanges(
    database,
    () => now,
    () => draw,
  );
  const cache = changes.cache<string>('account');
  const other = changes.cache<number>('profile');

  beforeAll(() => changes.start());

  it('does not store a read that a notice overtook', async () => {
    const generation = cache.generation;
    heard('u1');
    cache.set('u1', 's', 'read before the ban', generation);
    expect(cache.get('u1', 's')).toBeUndefined();
    const read = cache.through('u1', 's', async () => 'read while a notice came');
    heard('u1');
    expect(await read).toBe('read while a notice came');
    expect(cache.get('u1', 's')).toBeUndefined();
    expect(await cache.through('u1', 's', async () => 'read after')).toBe('read after');
    expect(await cache.through('u1', 's', async () => 'not read again')).toBe('read after');
  });

  it('a notice for another user does not spoil a read under way; one for everyone does', async () => {
    const read = cache.through('u7', 's', async () => 'read while another user changed');
    heard('someone-else');
    await read;
    expect(cache.get('u7', 's')).toBe('read while another user changed');
    heard('u7');
    const spoiled = cache.through('u7', 's', async () => 'read while everyone changed');
    heard('*');
    await spoiled;
    expect(cache.get('u7', 's')).toBeUndefined();
  });

  it('keeps an entry at most 2 min, and not past the moment it stops being true', () => {
    now = 1_000_000;
    cache.set('u2', 's', 'row', cache.generation);
    cache.set('u3', 's', 'row', cache.generation, new Date(now + 5_000));
    now += 4_999;
    expect([cache.get('u2', 's'), cache.get('u3', 's')]).toEqual(['row', 'row']);
    now += 1;
    expect([cache.get('u2', 's'), cache.get('u3', 's')]).toEqual(['row', undefined]);
    now += 114_999;
    expect(cache.get('u2', 's')).toBe('row');
    now += 1;
    expect(cache.get('u2', 's')).toBeUndefined();
  });

  it("spreads entries' age caps over 80–120 s, so rows stored in the same second do not all expire in the same second", () => {
    now = 2_000_000;
    const draws = [0, 0.5, 0.999_999];
    for (const [i, next] of draws.entries()) {
      draw = next;
      cache.set(`spread-${i}`, 's', 'row', cache.generation);
    }
    draw = 0;
    const kept = () => draws.map((_, i) => cache.get(`spread-${i}`, 's'));
    now += 79_999;
    expect(kept()).toEqual(['row', 'row', 'row']);
    now += 2;
    expect(kept()).toEqual(['row', 'row', undefined]);
    now += 19_999;
    expect(kept()).toEqual(['row', undefined, undefined]);
    now += 19_999;
    expect(kept()).toEqual(['row', undefined, undefined]);
    now += 1;
    expect(kept()).toEqual([undefined, undefined, undefined]);
    expect([entryAgeCapMs(0), entryAgeCapMs(0.5)]).toEqual([120_000, 100_000]);
  });

  it('a profile-only notice forgets the user in profile caches alone, and spoils no account read under way', () => {
    cache.set('u8', 's', 'row', cache.generation);
    other.set('u8', 'profile', 8, other.generation);
    const accountRead = cache.generation;
    const profileRead = other.generation;
    heard('profile:u8');
    expect([cache.get('u8', 's'), other.get('u8', 'profile')]).toEqual(['row', undefined]);
    cache.set('u8', 's2', 'read meanwhile', accountRead);
    other.set('u8', 'profile', 9, profileRead);
    expect([cache.get('u8', 's2'), other.get('u8', 'profile')]).toEqual(['read meanwhile', undefined]);
    heard('u8');
    expect([cache.get('u8', 's'), cache.get('u8', 's2')]).toEqual([undefined, undefined]);
  });

  it('a notice forgets that user in every cache; `*` and a listener that may have missed notices forget everyone', () => {
    cache.set('u4', 's1', 'row', cache.generation);
    cache.set('u4', 's2', 'row', cache.generation);
    cache.set('u5', 's1', 'row', cache.generation);
    other.set('u4', 'profile', 4, other.generation);
    heard('u4');
    expect([cache.get('u4', 's1'), cache.get('u4', 's2'), cache.get('u5', 's1'), other.get('u4', 'profile')]).toEqual([
      undefined,
      undefined,
      'row',
      undefined,
    ]);
    resync();
    expect([cache.get('u5', 's1'), cache.size]).toEqual([undefined, 0]);
    cache.set('u6', 's', 'row', cache.generation);
    heard('*');
    expect(cache.size).toBe(0);
  });
});
