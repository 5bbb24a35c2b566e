import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { createGame, createTerm, patchGame } from '../fixtures.js';

/** The public store: GET /v1/public/store/games and /{slug}. Published games only; no token; no writes. */

type App = Awaited<ReturnType<typeof startTestApp>>;
type Term = { id: number; slug: string; name: string };

describe('public store', () => {
  let t: App;
  let editor: TestUser;
  let rpg: Term;
  let shooter: Term;
  let studio: Term;
  let indie: Term;
  let label: Term;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['store.read', 'store.write']);
    rpg = await createTerm(t, editor, 'genres', 'Role Playing', 'rpg');
    shooter = await createTerm(t, editor, 'genres', 'Shooter');
    studio = await createTerm(t, editor, 'developers', 'Zed Studio');
    indie = await createTerm(t, editor, 'developers', 'Alpha Indie');
    label = await createTerm(t, editor, 'publishers', 'Label Co');
    const games = [
      {
        slug: 'dragon-saga',
        title: 'Dragon Saga',
        status: 'published',
        release_date: '2024-06-01',
        genre_ids: [rpg.id, shooter.id],
        developer_ids: [studio.id, indie.id],
        publisher_ids: [label.id],
      },
      {
        slug: 'space-gun',
        title: 'Space Gun',
        status: 'published',
        release_date: '2025-02-01',
        genre_ids: [shooter.id],
      },
      { slug: 'mod-launcher', title: 'Mod Launcher', status: 'published', game_type: 'launcher', release_date: null },
      { slug: 'secret-draft', title: 'Secret Draft', status: 'draft', genre_ids: [rpg.id] },
      { slug: 'hidden-gem', title: 'Hidden Gem', status: 'hidden', genre_ids: [rpg.id] },
      { slug: 'old-tool', title: 'Old Tool', status: 'published', game_type: 'app', release_date: '2020-01-01' },
    ];
    for (const game of games) ids[game.slug] = (await createGame(t, editor, game)).id;
  });
  afterAll(async () => t.close());

  const get = (url: string) => t.request({ method: 'GET', url });
  const slugsOf = (body: { data: Array<{ slug: string }> }) => body.data.map((game) => game.slug);

  it('lists published games only, newest release first and undated last, with total, without a token', async () => {
    const res = await get('/v1/public/store/games');
    expect(res.statusCode).toBe(200);
    expect(slugsOf(res.json())).toEqual(['space-gun', 'dragon-saga', 'old-tool', 'mod-launcher']);
    expect(res.json().meta).toEqual({ page: 1, per_page: 25, total: 4 });
    expect(res.json().data[1]).toEqual({
      id: ids['dragon-saga'],
      slug: 'dragon-saga',
      title: 'Dragon Saga',
      summary: null,
      game_type: 'game',
      release_date: '2024-06-01',
      controller_support: 'none',
      required_age: 0,
      license_required: false,
      genres: [
        { id: rpg.id, slug: 'rpg', name: 'Role Playing' },
        { id: shooter.id, slug: 'shooter', name: 'Shooter' },
      ],
      developers: [
        { id: indie.id, slug: 'alpha-indie', name: 'Alpha Indie' },
        { id: studio.id, slug: 'zed-studio', name: 'Zed Studio' },
      ],
      publishers: [{ id: label.id, slug: 'label-co', name: 'Label Co' }],
    });
  });

  it.each([
    { name: 'genre by slug', query: '?genre=rpg', slugs: ['dragon-saga'] },
    { name: 'genre by id', query: () => `?genre=${shooter.id}`, slugs: ['space-gun', 'dragon-saga'] },
    { name: 'an unknown genre slug', query: '?genre=puzzle', slugs: [] },
    { name: 'an unknown genre id', query: '?genre=999999', slugs: [] },
    { name: 'a genre id past any integer', query: '?genre=99999999999999999999', slugs: [] },
    { name: 'game_type launcher', query: '?game_type=launcher', slugs: ['mod-launcher'] },
    { name: 'game_type app', query: '?game_type=app', slugs: ['old-tool'] },
    { name: 'q on the title', query: '?q=DRAGON', slugs: ['dragon-saga'] },
    { name: 'q on the slug', query: '?q=mod-l', slugs: ['mod-launcher'] },
    { name: 'q never reaches unpublished games', query: '?q=secret', slugs: [] },
    { name: 'genre and q together', query: '?genre=shooter&q=space', slugs: ['space-gun'] },
    {
      name: 'sort by title',
      query: '?sort=title:asc',
      slugs: ['dragon-saga', 'mod-launcher', 'old-tool', 'space-gun'],
    },
    {
      name: 'oldest release first',
      query: '?sort=release_date:asc',
      slugs: ['old-tool', 'dragon-saga', 'space-gun', 'mod-launcher'],
    },
    { name: 'a page', query: '?per_page=3&page=2', slugs: ['mod-launcher'] },
  ])('filters and sorts: $name', async ({ query, slugs }) => {
    const res = await get(`/v1/public/store/games${typeof query === 'function' ? query() : query}`);
    expect(res.statusCode).toBe(200);
    expect(slugsOf(res.json())).toEqual(slugs);
    if (!query.toString().includes('page=')) expect(res.json().meta.total).toBe(slugs.length);
  });

  it('pages with the total of every published match', async () => {
    const res = await get('/v1/public/store/games?per_page=3&page=2');
    expect(res.json().meta).toEqual({ page: 2, per_page: 3, total: 4 });
  });

  it.each([
    { query: '?genre=RPG', path: ['genre'] },
    { query: '?game_type=mod', path: ['game_type'] },
    { query: '?sort=created_at:desc', path: ['sort'] },
    { query: '?status=draft', path: null },
    { query: '?per_page=101', path: ['per_page'] },
  ])('refuses $query with a SchemaError (an unknown parameter such as status is ignored)', async ({ query, path }) => {
    const res = await get(`/v1/public/store/games${query}`);
    if (path === null) {
      expect(res.statusCode).toBe(200);
      expect(slugsOf(res.json())).not.toContain('secret-draft');
      return;
    }
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError', issues: [{ path }] } });
  });

  it('shows one published game by slug with every public field and its genre, developer and publisher names', async () => {
    await patchGame(t, editor, ids['dragon-saga']!, {
      summary: 'Fly.',
      description: 'Long text.',
      website: 'https://dragon.example.test',
      legal_notice: '© Zed',
      content_description: 'Fantasy violence',
      metadata: { screenshots: ['1.png'] },
      required_age: 12,
      controller_support: 'full',
      license_required: true,
    });
    const res = await get('/v1/public/store/games/dragon-saga');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: ids['dragon-saga'],
      slug: 'dragon-saga',
      title: 'Dragon Saga',
      summary: 'Fly.',
      description: 'Long text.',
      game_type: 'game',
      release_date: '2024-06-01',
      controller_support: 'full',
      website: 'https://dragon.example.test',
      required_age: 12,
      legal_notice: '© Zed',
      license_required: true,
      content_description: 'Fantasy violence',
      metadata: { screenshots: ['1.png'] },
      genres: [
        { id: rpg.id, slug: 'rpg', name: 'Role Playing' },
        { id: shooter.id, slug: 'shooter', name: 'Shooter' },
      ],
      developers: [
        { id: indie.id, slug: 'alpha-indie', name: 'Alpha Indie' },
        { id: studio.id, slug: 'zed-studio', name: 'Zed Studio' },
      ],
      publishers: [{ id: label.id, slug: 'label-co', name: 'Label Co' }],
    });
    expect(res.json()).not.toHaveProperty('status');
  });

  it.each([
    { name: 'a draft game', slug: 'secret-draft' },
    { name: 'a hidden game', slug: 'hidden-gem' },
    { name: 'an unknown slug', slug: 'no-such-game' },
    { name: 'a slug no game can have', slug: 'UPPER_case' },
  ])('answers 404 game_not_found for $name', async ({ slug }) => {
    const res = await get(`/v1/public/store/games/${slug}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'game_not_found' });
  });

  it('shows a publish on the next read, and a hide or a deletion at once', async () => {
    const game = await createGame(t, editor, { slug: 'soon-live', title: 'Soon Live', genre_ids: [rpg.id] });
    expect((await get('/v1/public/store/games/soon-live')).statusCode).toBe(404);
    expect(slugsOf((await get('/v1/public/store/games?genre=rpg')).json())).toEqual(['dragon-saga']);

    await patchGame(t, editor, game.id, { status: 'published', release_date: '2030-01-01' });
    expect((await get('/v1/public/store/games/soon-live')).json()).toMatchObject({
      slug: 'soon-live',
      genres: [{ slug: 'rpg' }],
    });
    expect(slugsOf((await get('/v1/public/store/games?genre=rpg')).json())).toEqual(['soon-live', 'dragon-saga']);

    await patchGame(t, editor, game.id, { status: 'hidden' });
    expect((await get('/v1/public/store/games/soon-live')).statusCode).toBe(404);
    await patchGame(t, editor, game.id, { status: 'published' });
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/admin/store/games/${game.id}`, token: editor.token })).statusCode,
    ).toBe(204);
    expect((await get('/v1/public/store/games/soon-live')).json()).toEqual({ error: 'game_not_found' });
  });

  it('drops a deleted genre from the public game at once', async () => {
    const temporary = await createTerm(t, editor, 'genres', 'Temporary');
    const game = await createGame(t, editor, { status: 'published', genre_ids: [temporary.id, rpg.id] });
    expect((await get(`/v1/public/store/games/${game.slug}`)).json().genres.map((g: Term) => g.slug)).toEqual([
      'rpg',
      'temporary',
    ]);
    await t.request({ method: 'DELETE', url: `/v1/admin/store/genres/${temporary.id}`, token: editor.token });
    expect((await get(`/v1/public/store/games/${game.slug}`)).json().genres.map((g: Term) => g.slug)).toEqual(['rpg']);
  });

  it('list pages are cached, yet a renamed or deleted term shows in them at once', async () => {
    const term = await createTerm(t, editor, 'developers', 'Cached Works');
    const game = await createGame(t, editor, { status: 'published', developer_ids: [term.id] });
    const developersOf = async () =>
      ((await get(`/v1/public/store/games?q=${game.slug}`)).json().data[0]?.developers ?? []).map((d: Term) => d.name);
    expect(await developersOf()).toEqual(['Cached Works']);
    expect(await developersOf()).toEqual(['Cached Works']); // served from memory
    const renamed = await t.request({
      method: 'PATCH',
      url: `/v1/admin/store/developers/${term.id}`,
      token: editor.token,
      payload: { name: 'Renamed Works' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await developersOf()).toEqual(['Renamed Works']);
    await t.request({ method: 'DELETE', url: `/v1/admin/store/developers/${term.id}`, token: editor.token });
    expect(await developersOf()).toEqual([]);
  });

  it('reaches a game whose slug has the full 128 characters', async () => {
    const slug = `g${'x'.repeat(127)}`;
    await createGame(t, editor, { slug, title: 'Long slug', status: 'published' });
    const res = await get(`/v1/public/store/games/${slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().slug).toBe(slug);
  });

  it.each([
    { method: 'POST' as const, url: '/v1/public/store/games' },
    { method: 'PUT' as const, url: '/v1/public/store/games/dragon-saga' },
    { method: 'PATCH' as const, url: '/v1/public/store/games/dragon-saga' },
    { method: 'DELETE' as const, url: '/v1/public/store/games/dragon-saga' },
  ])('has no public write: $method $url is 404 not_found and changes nothing', async ({ method, url }) => {
    const before = await t.db.selectFrom('store_games').selectAll().orderBy('id').execute();
    const res = await t.request({ method, url, payload: { slug: 'hack', title: 'Hack', status: 'published' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found' });
    expect(await t.db.selectFrom('store_games').selectAll().orderBy('id').execute()).toEqual(before);
  });
});
