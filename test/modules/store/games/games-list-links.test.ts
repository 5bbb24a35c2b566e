import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { createGame, createTerm, patchGame } from '../fixtures.js';

/** GET /v1/admin/store/games filtered by a linked genre, developer or publisher (the console's "games of this genre"). */

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('staff store games list by linked term', () => {
  let t: App;
  let reader: TestUser;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp();
    const editor = await createUser(t.db, ['store.write']);
    reader = await createUser(t.db, ['store.read']);
    ids.rpg = (await createTerm(t, editor, 'genres', 'RPG')).id;
    ids.puzzle = (await createTerm(t, editor, 'genres', 'Puzzle')).id;
    ids.studio = (await createTerm(t, editor, 'developers', 'Studio One')).id;
    ids.house = (await createTerm(t, editor, 'publishers', 'House')).id;
    await createGame(t, editor, { slug: 'links-a', genre_ids: [ids.rpg, ids.puzzle], developer_ids: [ids.studio] });
    await createGame(t, editor, {
      slug: 'links-b',
      status: 'published',
      genre_ids: [ids.rpg],
      publisher_ids: [ids.house],
    });
    const c = await createGame(t, editor, { slug: 'links-c', genre_ids: [ids.puzzle] });
    // A link taken away no longer matches.
    expect((await patchGame(t, editor, c.id, { genre_ids: [] })).statusCode).toBe(200);
  });
  afterAll(async () => t.close());

  const slugs = async (query: string) => {
    const res = await t.request({ method: 'GET', url: `/v1/admin/store/games${query}`, token: reader.token });
    expect(res.statusCode, res.body).toBe(200);
    return {
      slugs: res
        .json()
        .data.map((game: { slug: string }) => game.slug)
        .sort(),
      total: res.json().meta.total,
    };
  };

  it('filters by genre, developer and publisher, alone and with the other filters', async () => {
    await expect(slugs(`?genre_id=${ids.rpg}`)).resolves.toEqual({ slugs: ['links-a', 'links-b'], total: 2 });
    await expect(slugs(`?genre_id=${ids.puzzle}`)).resolves.toEqual({ slugs: ['links-a'], total: 1 });
    await expect(slugs(`?developer_id=${ids.studio}`)).resolves.toEqual({ slugs: ['links-a'], total: 1 });
    await expect(slugs(`?publisher_id=${ids.house}`)).resolves.toEqual({ slugs: ['links-b'], total: 1 });
    await expect(slugs(`?genre_id=${ids.rpg}&status=published`)).resolves.toEqual({ slugs: ['links-b'], total: 1 });
    await expect(slugs(`?genre_id=${ids.rpg}&developer_id=${ids.studio}`)).resolves.toEqual({
      slugs: ['links-a'],
      total: 1,
    });
    await expect(slugs('?genre_id=999999')).resolves.toEqual({ slugs: [], total: 0 });
  });

  it.each(['genre_id=0', 'developer_id=abc', 'publisher_id=2147483648'])(
    'refuses %s with a SchemaError',
    async (query) => {
      const res = await t.request({ method: 'GET', url: `/v1/admin/store/games?${query}`, token: reader.token });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { name: 'SchemaError', issues: [{ path: [query.split('=')[0]] }] } });
    },
  );
});
