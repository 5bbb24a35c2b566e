import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { schemaError } from '../../helpers/expectations.js';
import { seedGame, type App } from './fixtures.js';

/**
 * The session lists: the player's history (GET /v1/me/game-sessions) and the staff list
 * (GET /v1/admin/runtime/sessions), cursor + limit, newest first by (created_at, id). The rows
 * are seeded with chosen instants: ties, and neighbours a microsecond apart inside one
 * millisecond, so a cursor that lost precision or ignored the id would skip or repeat rows.
 */

interface Seeded {
  id: string;
  user: 'alice' | 'bob';
  /** Microseconds after 2024-05-01T10:00:00Z. */
  at: number;
  pool: string | null;
  game: 'g1' | 'g2' | null;
  status: 'starting' | 'active' | 'ended' | 'failed';
}

const SEEDS: Omit<Seeded, 'id'>[] = [
  { user: 'alice', at: 1, pool: 'p-east', game: 'g1', status: 'ended' },
  { user: 'alice', at: 2, pool: 'p-east', game: 'g2', status: 'ended' },
  { user: 'alice', at: 2, pool: 'p-west', game: 'g1', status: 'failed' },
  { user: 'alice', at: 500, pool: 'p-west', game: 'g2', status: 'ended' },
  { user: 'alice', at: 1_000_000, pool: null, game: 'g1', status: 'failed' },
  { user: 'alice', at: 2_000_000, pool: 'p-east', game: 'g1', status: 'ended' },
  { user: 'alice', at: 3_000_000, pool: 'p-east', game: 'g2', status: 'active' },
  { user: 'bob', at: 2, pool: 'p-west', game: 'g1', status: 'ended' },
  { user: 'bob', at: 1_500_000, pool: 'p-east', game: 'g2', status: 'ended' },
  { user: 'bob', at: 2_500_000, pool: 'p-west', game: null, status: 'failed' },
  { user: 'bob', at: 4_000_000, pool: 'p-west', game: 'g1', status: 'starting' },
];

function instant(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `2024-05-01T10:00:${String(seconds).padStart(2, '0')}.${fraction}Z`;
}

/** The expected order: newest first, the larger id first on a tie (uuid order is its hex order). */
const newestFirst = (a: Seeded, b: Seeded) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const base64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

describe('game session lists', () => {
  let t: App;
  let alice: TestUser;
  let bob: TestUser;
  let reader: TestUser;
  let games: Record<'g1' | 'g2', { id: number; slug: string; title: string }>;
  let seeded: Seeded[];

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUser(t.db);
    bob = await createUser(t.db);
    reader = await createUser(t.db, ['runtime.read']);
    games = { g1: await seedGame(t), g2: await seedGame(t) };
    seeded = SEEDS.map((seed) => ({ ...seed, id: randomUUID() }));
    const users = { alice, bob };
    await t.db
      .insertInto('game_sessions')
      .values(
        seeded.map((seed) => {
          const game = seed.game === null ? null : games[seed.game];
          const ended = seed.status === 'ended' || seed.status === 'failed';
          return {
            id: seed.id,
            user_id: users[seed.user].id,
            game_id: game?.id ?? null,
            game_slug: game?.slug ?? 'deleted-game',
            game_title: game?.title ?? 'A deleted game',
            pool_id: seed.pool,
            node_id: seed.status === 'failed' || seed.status === 'starting' ? null : `${seed.pool}-node`,
            status: seed.status,
            end_reason:
              seed.status === 'ended'
                ? ('user_stopped' as const)
                : seed.status === 'failed'
                  ? ('start_failed' as const)
                  : null,
            stopped_by: seed.status === 'ended' ? users[seed.user].id : null,
            play_url: seed.status === 'failed' || seed.status === 'starting' ? null : `https://play.test/${seed.id}`,
            created_at: instant(seed.at),
            started_at: seed.status === 'failed' || seed.status === 'starting' ? null : instant(seed.at + 1),
            ended_at: ended ? instant(seed.at + 2) : null,
          };
        }),
      )
      .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  const expectedIds = (filter: (seed: Seeded) => boolean) =>
    seeded
      .filter(filter)
      .sort(newestFirst)
      .map((seed) => seed.id);

  async function get(caller: TestUser, url: string) {
    const response = await t.request({ method: 'GET', url, token: caller.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Array<Record<string, unknown> & { id: string }>;
      meta: { limit: number; next_cursor: string | null };
    };
  }

  /** Follows next_cursor to the end; returns the ids in order and the page sizes. */
  async function walk(caller: TestUser, path: string, query: Record<string, string>) {
    const ids: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) });
      const page = await get(caller, `${path}?${params}`);
      expect(page.meta.limit).toBe(Number(query.limit ?? 25));
      ids.push(...page.data.map((row) => row.id));
      sizes.push(page.data.length);
      cursor = page.meta.next_cursor;
      if (cursor === null) return { ids, sizes };
    }
    throw new Error('the cursor never ended');
  }

  describe('GET /v1/me/game-sessions', () => {
    it("the caller's own sessions, newest first, default limit 25, next_cursor null; records carry no member token nor staff fields", async () => {
      const page = await get(alice, '/v1/me/game-sessions');
      expect(page.meta).toEqual({ limit: 25, next_cursor: null });
      expect(page.data.map((row) => row.id)).toEqual(expectedIds((seed) => seed.user === 'alice'));
      const newest = seeded.find((seed) => seed.user === 'alice' && seed.at === 3_000_000)!;
      expect(page.data[0]).toEqual({
        id: newest.id,
        game_id: games.g2.id,
        game_slug: games.g2.slug,
        game_title: games.g2.title,
        status: 'active',
        end_reason: null,
        play_url: `https://play.test/${newest.id}`,
        created_at: '2024-05-01T10:00:03.000Z',
        started_at: '2024-05-01T10:00:03.000Z',
        ended_at: null,
      });
      for (const row of page.data)
        expect(Object.keys(row).sort()).toEqual([
          'created_at',
          'end_reason',
          'ended_at',
          'game_id',
          'game_slug',
          'game_title',
          'id',
          'play_url',
          'started_at',
          'status',
        ]);
    });

    it.each([1, 2, 3, 6, 7, 8])(
      'pages of %i follow next_cursor through every row exactly once, in order',
      async (limit) => {
        const expected = expectedIds((seed) => seed.user === 'alice');
        const { ids, sizes } = await walk(alice, '/v1/me/game-sessions', { limit: String(limit) });
        expect(ids).toEqual(expected);
        const fullPages = Math.floor(expected.length / limit);
        const rest = expected.length % limit;
        expect(sizes).toEqual([...Array(fullPages).fill(limit), ...(rest > 0 ? [rest] : [])]);
      },
    );

    it('a player with no sessions gets an empty page', async () => {
      const nobody = await createUser(t.db);
      expect(await get(nobody, '/v1/me/game-sessions?limit=5')).toEqual({
        data: [],
        meta: { limit: 5, next_cursor: null },
      });
    });

    it.each([
      { name: 'not base64url', cursor: 'not a cursor!' },
      { name: 'base64url of no JSON', cursor: base64url('{{{') },
      { name: 'a JSON array', cursor: base64url([1, 2]) },
      { name: 'an impossible date', cursor: base64url({ t: '2024-02-30T10:00:00.000000Z', i: randomUUID() }) },
      { name: 'a month 13', cursor: base64url({ t: '2024-13-01T10:00:00.000000Z', i: randomUUID() }) },
      { name: 'milliseconds only', cursor: base64url({ t: '2024-05-01T10:00:00.000Z', i: randomUUID() }) },
      { name: 'an id that is no uuid', cursor: base64url({ t: '2024-05-01T10:00:00.000000Z', i: "x' OR 1=1" }) },
      { name: 'an extra key', cursor: base64url({ t: '2024-05-01T10:00:00.000000Z', i: randomUUID(), u: 'someone' }) },
      { name: 'an oversized cursor', cursor: 'A'.repeat(5000) },
      { name: 'an empty cursor', cursor: '' },
    ])('a malformed cursor ($name) is 400 SchemaError on cursor', async ({ cursor }) => {
      const response = await t.request({
        method: 'GET',
        url: `/v1/me/game-sessions?cursor=${encodeURIComponent(cursor)}`,
        token: alice.token,
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual(schemaError({ code: 'custom', path: ['cursor'] }));
    });

    it.each(['0', '101', '-1', '2.5', 'ten'])('limit=%s is 400 SchemaError on limit', async (limit) => {
      const response = await t.request({
        method: 'GET',
        url: `/v1/me/game-sessions?limit=${limit}`,
        token: alice.token,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: ['limit'] }));
    });

    it('limit=100 is accepted; 401 without a token', async () => {
      expect((await get(bob, '/v1/me/game-sessions?limit=100')).data.map((row) => row.id)).toEqual(
        expectedIds((seed) => seed.user === 'bob'),
      );
      const anonymous = await t.request({ method: 'GET', url: '/v1/me/game-sessions' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ error: 'missing_token' });
    });
  });

  describe('GET /v1/admin/runtime/sessions', () => {
    const path = '/v1/admin/runtime/sessions';

    it('every session, newest first, with the staff record', async () => {
      const page = await get(reader, path);
      expect(page.meta).toEqual({ limit: 25, next_cursor: null });
      expect(page.data.map((row) => row.id)).toEqual(expectedIds(() => true));
      const live = seeded.find((seed) => seed.user === 'bob' && seed.status === 'starting')!;
      expect(page.data[0]).toEqual({
        id: live.id,
        user_id: bob.id,
        game_id: games.g1.id,
        game_slug: games.g1.slug,
        game_title: games.g1.title,
        pool_id: 'p-west',
        node_id: null,
        status: 'starting',
        end_reason: null,
        stopped_by: null,
        play_url: null,
        created_at: '2024-05-01T10:00:04.000Z',
        started_at: null,
        ended_at: null,
      });
      const ended = page.data.find((row) => row.status === 'ended')!;
      expect(ended).toMatchObject({
        end_reason: 'user_stopped',
        stopped_by: expect.any(String),
        ended_at: expect.any(String),
      });
    });

    it.each([
      { name: 'user_id', query: () => ({ user_id: bob.id }), filter: (seed: Seeded) => seed.user === 'bob' },
      { name: 'pool_id', query: () => ({ pool_id: 'p-east' }), filter: (seed: Seeded) => seed.pool === 'p-east' },
      {
        name: 'node_id',
        query: () => ({ node_id: 'p-east-node' }),
        filter: (seed: Seeded) => seed.pool === 'p-east' && seed.status !== 'failed' && seed.status !== 'starting',
      },
      { name: 'status', query: () => ({ status: 'ended' }), filter: (seed: Seeded) => seed.status === 'ended' },
      {
        name: 'status (live starting)',
        query: () => ({ status: 'starting' }),
        filter: (seed: Seeded) => seed.status === 'starting',
      },
      {
        name: 'game_id',
        query: () => ({ game_id: String(games.g1.id) }),
        filter: (seed: Seeded) => seed.game === 'g1',
      },
      {
        name: 'user_id + status',
        query: () => ({ user_id: alice.id, status: 'failed' }),
        filter: (seed: Seeded) => seed.user === 'alice' && seed.status === 'failed',
      },
      {
        name: 'pool_id + game_id',
        query: () => ({ pool_id: 'p-west', game_id: String(games.g1.id) }),
        filter: (seed: Seeded) => seed.pool === 'p-west' && seed.game === 'g1',
      },
      {
        name: 'all four',
        query: () => ({ user_id: alice.id, pool_id: 'p-east', status: 'ended', game_id: String(games.g1.id) }),
        filter: (seed: Seeded) =>
          seed.user === 'alice' && seed.pool === 'p-east' && seed.status === 'ended' && seed.game === 'g1',
      },
      { name: 'a pool nobody uses', query: () => ({ pool_id: 'p-none' }), filter: () => false },
    ])('filter $name', async ({ query, filter }) => {
      const expected = expectedIds(filter);
      const page = await get(reader, `${path}?${new URLSearchParams(query())}`);
      expect(page.data.map((row) => row.id)).toEqual(expected);
      expect(page.meta.next_cursor).toBeNull();
      // The same filter paged two at a time gives the same rows.
      expect((await walk(reader, path, { ...query(), limit: '2' })).ids).toEqual(expected);
    });

    it('pages of 1 through everything, in order', async () => {
      expect((await walk(reader, path, { limit: '1' })).ids).toEqual(expectedIds(() => true));
    });

    it.each([
      { query: 'status=running', path: ['status'] },
      { query: 'user_id=not-a-uuid', path: ['user_id'] },
      { query: 'game_id=0', path: ['game_id'] },
      { query: 'pool_id=', path: ['pool_id'] },
      { query: 'cursor=!!!', path: ['cursor'] },
    ])('400 SchemaError for $query', async ({ query, path: issuePath }) => {
      const response = await t.request({ method: 'GET', url: `${path}?${query}`, token: reader.token });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: issuePath }));
    });

    it('403 naming runtime.read for a player', async () => {
      const response = await t.request({ method: 'GET', url: path, token: alice.token });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: 'forbidden', details: { perm: 'runtime.read' } });
    });
  });
});
