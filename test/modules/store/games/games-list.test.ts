import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { createGame, patchGame } from '../fixtures.js';

/** GET /v1/admin/store/games: paging with total, `q`, the status and type filters, every sort. */

type App = Awaited<ReturnType<typeof startTestApp>>;

// Titles start with distinct capitals so every collation orders them alike.
const GAMES = [
  { slug: 'alpha-quest', title: 'Alpha Quest', status: 'published', game_type: 'game', release_date: '2024-05-01' },
  { slug: 'beta-tools', title: 'Beta Tools', status: 'draft', game_type: 'app', release_date: null },
  {
    slug: 'cosmic-launcher',
    title: 'Cosmic Launcher',
    status: 'hidden',
    game_type: 'launcher',
    release_date: '2023-01-01',
  },
  {
    slug: 'delta-force',
    title: 'Delta 100% Force',
    status: 'published',
    game_type: 'game',
    release_date: '2025-01-01',
  },
  { slug: 'echo', title: 'Echo', status: 'draft', game_type: 'game', release_date: null },
] as const;

describe('staff store games list', () => {
  let t: App;
  let reader: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    const editor = await createUser(t.db, ['store.write']);
    reader = await createUser(t.db, ['store.read']);
    for (const game of GAMES) await createGame(t, editor, { ...game });
    // Beta is edited last: first by updated_at.
    const beta = await t.db
      .selectFrom('store_games')
      .select('id')
      .where('slug', '=', 'beta-tools')
      .executeTakeFirstOrThrow();
    expect((await patchGame(t, editor, beta.id, { summary: 'edited' })).statusCode).toBe(200);
  });
  afterAll(async () => t.close());

  const list = (query: string) =>
    t.request({ method: 'GET', url: `/v1/admin/store/games${query}`, token: reader.token });
  const slugsOf = (body: { data: Array<{ slug: string }> }) => body.data.map((game) => game.slug);

  it('lists every status, newest first by default, with page, per_page and total', async () => {
    const res = await list('');
    expect(res.statusCode).toBe(200);
    expect(slugsOf(res.json())).toEqual(['echo', 'delta-force', 'cosmic-launcher', 'beta-tools', 'alpha-quest']);
    expect(res.json().meta).toEqual({ page: 1, per_page: 25, total: 5 });
    const beta = res.json().data[3];
    expect(beta).toMatchObject({
      slug: 'beta-tools',
      summary: 'edited',
      genre_ids: [],
      developer_ids: [],
      publisher_ids: [],
      metadata: {},
    });
  });

  it.each([
    { query: '?per_page=2', slugs: ['echo', 'delta-force'], meta: { page: 1, per_page: 2, total: 5 } },
    { query: '?per_page=2&page=2', slugs: ['cosmic-launcher', 'beta-tools'], meta: { page: 2, per_page: 2, total: 5 } },
    { query: '?per_page=2&page=3', slugs: ['alpha-quest'], meta: { page: 3, per_page: 2, total: 5 } },
    { query: '?per_page=2&page=4', slugs: [], meta: { page: 4, per_page: 2, total: 5 } },
  ])('pages: $query', async ({ query, slugs, meta }) => {
    const res = await list(query);
    expect(slugsOf(res.json())).toEqual(slugs);
    expect(res.json().meta).toEqual(meta);
  });

  it.each([
    { sort: 'title:asc', slugs: ['alpha-quest', 'beta-tools', 'cosmic-launcher', 'delta-force', 'echo'] },
    { sort: 'title:desc', slugs: ['echo', 'delta-force', 'cosmic-launcher', 'beta-tools', 'alpha-quest'] },
    { sort: 'created_at:asc', slugs: ['alpha-quest', 'beta-tools', 'cosmic-launcher', 'delta-force', 'echo'] },
    { sort: 'created_at:desc', slugs: ['echo', 'delta-force', 'cosmic-launcher', 'beta-tools', 'alpha-quest'] },
    { sort: 'updated_at:desc', slugs: ['beta-tools', 'echo', 'delta-force', 'cosmic-launcher', 'alpha-quest'] },
    { sort: 'updated_at:asc', slugs: ['alpha-quest', 'cosmic-launcher', 'delta-force', 'echo', 'beta-tools'] },
    // Undated games come last in both directions.
    { sort: 'release_date:asc', slugs: ['cosmic-launcher', 'alpha-quest', 'delta-force', 'beta-tools', 'echo'] },
    { sort: 'release_date:desc', slugs: ['delta-force', 'alpha-quest', 'cosmic-launcher', 'echo', 'beta-tools'] },
  ])('sorts by $sort', async ({ sort, slugs }) => {
    const res = await list(`?sort=${sort}`);
    expect(res.statusCode).toBe(200);
    expect(slugsOf(res.json())).toEqual(slugs);
  });

  it.each([
    { name: 'status published', query: '?status=published', slugs: ['delta-force', 'alpha-quest'] },
    { name: 'status hidden', query: '?status=hidden', slugs: ['cosmic-launcher'] },
    { name: 'type launcher', query: '?game_type=launcher', slugs: ['cosmic-launcher'] },
    { name: 'status draft and type game', query: '?status=draft&game_type=game', slugs: ['echo'] },
    { name: 'q on the title, any case', query: '?q=ALPHA%20q', slugs: ['alpha-quest'] },
    { name: 'q on the slug', query: '?q=beta-to', slugs: ['beta-tools'] },
    { name: 'q with a literal %', query: '?q=100%25', slugs: ['delta-force'] },
    { name: 'q that is only %', query: '?q=%25', slugs: ['delta-force'] },
    { name: 'q with a literal _', query: '?q=a_q', slugs: [] },
    {
      name: 'q and a filter and a sort',
      query: '?q=a&status=published&sort=title:asc',
      slugs: ['alpha-quest', 'delta-force'],
    },
    { name: 'q that matches nothing', query: '?q=zzz', slugs: [] },
  ])('filters: $name', async ({ query, slugs }) => {
    const res = await list(query);
    expect(res.statusCode).toBe(200);
    expect(slugsOf(res.json())).toEqual(slugs);
    expect(res.json().meta.total).toBe(slugs.length);
  });

  it.each([
    { query: '?sort=slug:asc', path: ['sort'] },
    { query: '?sort=title', path: ['sort'] },
    { query: '?per_page=101', path: ['per_page'] },
    { query: '?per_page=0', path: ['per_page'] },
    { query: '?page=0', path: ['page'] },
    { query: '?status=archived', path: ['status'] },
    { query: '?game_type=mod', path: ['game_type'] },
    { query: '?q=', path: ['q'] },
    { query: `?q=${'x'.repeat(201)}`, path: ['q'] },
  ])('refuses $query with a SchemaError', async ({ query, path }) => {
    const res = await list(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError', issues: [{ path }] } });
  });
});
