import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { auditRows, boundCases, createGame, createTerm, linkIds, storeState, uniqueSlug } from '../fixtures.js';

/** Staff store games: create, get, delete, permissions and the spec's input bounds. */

type App = Awaited<ReturnType<typeof startTestApp>>;

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('staff store games: create, get, delete', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['store.read', 'store.write']);
    reader = await createUser(t.db, ['store.read']);
    outsider = await createUser(t.db, ['content.write', 'content.read']);
  });
  afterAll(async () => t.close());

  const post = (user: TestUser | null, payload: unknown) =>
    t.request({ method: 'POST', url: '/v1/admin/store/games', token: user?.token, payload: payload as object });

  it('creates a game with every field, answers 201 with the StoreGame row, stores its links and audits it', async () => {
    const genre = await createTerm(t, editor, 'genres', 'Strategy');
    const developer = await createTerm(t, editor, 'developers', 'Tiny Studio');
    const publisher = await createTerm(t, editor, 'publishers', 'Big Publisher');
    const payload = {
      slug: 'star-harbor',
      title: 'Star Harbor',
      summary: 'Build a port among the stars.',
      description: 'A long description.',
      game_type: 'launcher',
      status: 'hidden',
      release_date: '2025-03-14',
      controller_support: 'partial',
      website: 'https://star-harbor.example.test/about',
      required_age: 12,
      legal_notice: '© Tiny Studio',
      license_required: true,
      content_description: 'Mild fantasy violence.',
      metadata: { screenshots: ['a.png'], trailer: { url: 'https://video.example.test/1' } },
      genre_ids: [genre.id, genre.id],
      developer_ids: [developer.id],
      publisher_ids: [publisher.id],
    };
    const res = await post(editor, payload);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      ...payload,
      id: expect.any(Number),
      genre_ids: [genre.id],
      created_at: ISO,
      updated_at: body.created_at,
    });

    const row = await t.db.selectFrom('store_games').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect({ ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() }).toEqual({
      ...payload,
      id: body.id,
      created_at: body.created_at,
      updated_at: body.updated_at,
      genre_ids: undefined,
      developer_ids: undefined,
      publisher_ids: undefined,
    });
    expect(await linkIds(t, body.id)).toEqual({
      genre_ids: [genre.id],
      developer_ids: [developer.id],
      publisher_ids: [publisher.id],
    });

    const [audit] = await auditRows(t, 'store.game.create', body.id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      target_type: 'store_game',
      request_id: res.headers['x-request-id'],
      summary: {
        after: {
          slug: 'star-harbor',
          title: 'Star Harbor',
          status: 'hidden',
          game_type: 'launcher',
          genre_ids: [genre.id],
          developer_ids: [developer.id],
          publisher_ids: [publisher.id],
        },
      },
    });
    expect(
      (await t.request({ method: 'GET', url: `/v1/admin/store/games/${body.id}`, token: reader.token })).json(),
    ).toEqual(body);
  });

  it('fills in the spec defaults for a game created with only slug and title', async () => {
    const slug = uniqueSlug();
    const res = await post(editor, { slug, title: 'Minimal' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      slug,
      title: 'Minimal',
      summary: null,
      description: null,
      game_type: 'game',
      status: 'draft',
      release_date: null,
      controller_support: 'none',
      website: null,
      required_age: 0,
      legal_notice: null,
      license_required: false,
      content_description: null,
      metadata: {},
      genre_ids: [],
      developer_ids: [],
      publisher_ids: [],
      created_at: ISO,
      updated_at: ISO,
    });
  });

  it.each(boundCases('accepted'))('accepts $field = $shown and stores it as sent', async ({ field, value }) => {
    const payload: Record<string, unknown> = { slug: uniqueSlug(), title: 'Bounds', [field]: value };
    const res = await post(editor, payload);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()[field]).toEqual(value);
    if (!field.endsWith('_ids')) {
      const row = await t.db
        .selectFrom('store_games')
        .selectAll()
        .where('id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      expect(row[field as keyof typeof row]).toEqual(value);
    }
  });

  it.each([
    ...boundCases('refused'),
    { field: 'extra', value: true, shown: 'an unknown field' },
    { field: 'id', value: 7, shown: 'an id' },
    { field: 'created_at', value: '2024-01-01T00:00:00Z', shown: 'a timestamp' },
  ])('refuses $field = $shown with a SchemaError naming it, storing nothing', async ({ field, value }) => {
    const before = await storeState(t);
    const res = await post(editor, { slug: uniqueSlug(), title: 'Bounds', [field]: value });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    const paths = body.error.issues.map(
      (issue: { path: unknown[]; keys?: string[] }) => issue.keys?.[0] ?? issue.path[0],
    );
    expect(paths).toContain(field);
    expect(await storeState(t)).toEqual(before);
  });

  it.each([
    { name: 'no slug', payload: { title: 'x' }, path: ['slug'] },
    { name: 'no title', payload: { slug: 'no-title' }, path: ['title'] },
    { name: 'a body that is not an object', payload: ['x'], path: [] },
  ])('refuses $name with a SchemaError', async ({ payload, path }) => {
    const res = await post(editor, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.issues[0]).toMatchObject({ path });
  });

  it('accepts 50 link ids (repeats stored once) and refuses 51', async () => {
    const genre = await createTerm(t, editor, 'genres', 'Fifty');
    const ok = await post(editor, { slug: uniqueSlug(), title: 'Fifty', genre_ids: new Array(50).fill(genre.id) });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().genre_ids).toEqual([genre.id]);
    const tooMany = await post(editor, {
      slug: uniqueSlug(),
      title: 'Fifty-one',
      genre_ids: new Array(51).fill(genre.id),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.issues[0]).toMatchObject({ code: 'too_big', path: ['genre_ids'], maximum: 50 });
  });

  it('answers 409 conflict for a taken slug, storing and auditing nothing', async () => {
    const first = await createGame(t, editor);
    const before = await storeState(t);
    const res = await post(editor, { slug: first.slug, title: 'Copycat' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', details: { reason: 'slug taken', slug: first.slug } });
    expect(await storeState(t)).toEqual(before);
  });

  it('gives a slug to one of two simultaneous creates and 409 to the other', async () => {
    const slug = uniqueSlug('race');
    const results = await Promise.all([
      post(editor, { slug, title: 'First' }),
      post(editor, { slug, title: 'Second' }),
    ]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect(await t.db.selectFrom('store_games').select('slug').where('slug', '=', slug).execute()).toHaveLength(1);
    expect(
      await auditRows(t, 'store.game.create', results.find((res) => res.statusCode === 201)!.json().id),
    ).toHaveLength(1);
  });

  it('answers 422 invalid_request naming every unknown linked id per list, storing nothing', async () => {
    const genre = await createTerm(t, editor, 'genres', 'Known genre');
    const before = await storeState(t);
    const res = await post(editor, {
      slug: uniqueSlug(),
      title: 'Dangling',
      genre_ids: [genre.id, 999_001, 999_002],
      publisher_ids: [2_147_483_647],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'unknown linked ids', genre_ids: [999_001, 999_002], publisher_ids: [2_147_483_647] },
    });
    expect(await storeState(t)).toEqual(before);
  });

  it('gets a game by id and answers 404 game_not_found for an unknown one', async () => {
    const game = await createGame(t, editor, { summary: 'Readable' });
    const found = await t.request({ method: 'GET', url: `/v1/admin/store/games/${game.id}`, token: reader.token });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual(game);
    const missing = await t.request({ method: 'GET', url: '/v1/admin/store/games/2147483647', token: reader.token });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'game_not_found' });
  });

  it.each([
    { id: '0', code: 'too_small' },
    { id: '-3', code: 'too_small' },
    { id: '2147483648', code: 'too_big' },
    { id: '1.5', code: 'invalid_type' },
    { id: 'abc', code: 'invalid_type' },
  ])('refuses the game id $id with a SchemaError ($code) on get, update and delete', async ({ id, code }) => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await t.request({
        method,
        url: `/v1/admin/store/games/${id}`,
        token: editor.token,
        payload: method === 'PATCH' ? { title: 'x' } : undefined,
      });
      expect(res.statusCode, `${method} ${id}`).toBe(400);
      expect(res.json().error.issues[0]).toMatchObject({ path: ['id'], code });
    }
  });

  it('deletes a game with its links (204), keeps the genres, audits it; a second delete is 404 game_not_found', async () => {
    const genre = await createTerm(t, editor, 'genres', 'Survives deletion');
    const game = await createGame(t, editor, { genre_ids: [genre.id], status: 'published' });
    const res = await t.request({ method: 'DELETE', url: `/v1/admin/store/games/${game.id}`, token: editor.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await t.db.selectFrom('store_games').select('id').where('id', '=', game.id).execute()).toEqual([]);
    expect(await linkIds(t, game.id)).toEqual({ genre_ids: [], developer_ids: [], publisher_ids: [] });
    expect(await t.db.selectFrom('store_genres').select('name').where('id', '=', genre.id).execute()).toEqual([
      { name: 'Survives deletion' },
    ]);
    const audits = await auditRows(t, 'store.game.delete', game.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      actor_id: editor.id,
      target_type: 'store_game',
      request_id: res.headers['x-request-id'],
      summary: {
        before: {
          slug: game.slug,
          title: game.title,
          status: 'published',
          game_type: 'game',
          genre_ids: [genre.id],
          developer_ids: [],
          publisher_ids: [],
        },
      },
    });

    const again = await t.request({ method: 'DELETE', url: `/v1/admin/store/games/${game.id}`, token: editor.token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'game_not_found' });
    expect(await auditRows(t, 'store.game.delete', game.id)).toHaveLength(1);
  });

  describe('permissions', () => {
    const routes = [
      { method: 'GET' as const, url: () => '/v1/admin/store/games', perm: 'store.read' },
      { method: 'GET' as const, url: () => '/v1/admin/store/games/1', perm: 'store.read' },
      {
        method: 'POST' as const,
        url: () => '/v1/admin/store/games',
        perm: 'store.write',
        payload: { slug: 'never-made', title: 'x' },
      },
      {
        method: 'PATCH' as const,
        url: () => '/v1/admin/store/games/1',
        perm: 'store.write',
        payload: { title: 'never' },
      },
      { method: 'DELETE' as const, url: () => '/v1/admin/store/games/1', perm: 'store.write' },
    ];

    it.each(routes)(
      '$method $perm: 403 forbidden naming the key for a caller without it, 401 without a token; nothing changes',
      async ({ method, url, perm, payload }) => {
        await createGame(t, editor);
        const before = await storeState(t);
        const caller = perm === 'store.write' ? reader : outsider;
        const denied = await t.request({ method, url: url(), token: caller.token, payload });
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toEqual({ error: 'forbidden', details: { perm } });
        const anonymous = await t.request({ method, url: url(), payload });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toEqual({ error: 'missing_token' });
        expect(await storeState(t)).toEqual(before);
      },
    );

    it('admits store.* and * to the write routes', async () => {
      for (const perms of [['store.*'], ['*']]) {
        const user = await createUser(t.db, perms);
        const res = await post(user, { slug: uniqueSlug(), title: 'Wildcard' });
        expect(res.statusCode).toBe(201);
      }
    });
  });
});
