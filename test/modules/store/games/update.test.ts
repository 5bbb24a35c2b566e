import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';
import {
  auditRows,
  boundCases,
  createGame,
  createTerm,
  linkIds,
  patchGame,
  storeState,
  uniqueSlug,
} from '../fixtures.js';

/** Operation 20, updateStoreGame: PATCH /v1/admin/store/games/{id}. */

type App = Awaited<ReturnType<typeof startTestApp>>;
type Term = { id: number };

describe('updateStoreGame (operation 20)', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let genres: Term[];
  let developers: Term[];
  let publishers: Term[];

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['store.read', 'store.write']);
    reader = await createUser(t.db, ['store.read']);
    genres = [
      await createTerm(t, editor, 'genres', 'Action'),
      await createTerm(t, editor, 'genres', 'Puzzle'),
      await createTerm(t, editor, 'genres', 'Racing'),
    ];
    developers = [
      await createTerm(t, editor, 'developers', 'Dev One'),
      await createTerm(t, editor, 'developers', 'Dev Two'),
    ];
    publishers = [
      await createTerm(t, editor, 'publishers', 'Pub One'),
      await createTerm(t, editor, 'publishers', 'Pub Two'),
    ];
  });
  afterAll(async () => t.close());

  /** A game linked to one of each, with every optional field set. */
  const linkedGame = () =>
    createGame(t, editor, {
      summary: 'Short',
      description: 'Long',
      release_date: '2024-01-02',
      website: 'https://example.test',
      legal_notice: 'Legal',
      content_description: 'Mild',
      metadata: { tags: ['x'] },
      genre_ids: [genres[0]!.id],
      developer_ids: [developers[0]!.id],
      publisher_ids: [publishers[0]!.id],
    });
  const updatedEvents = (gameId: number) =>
    t.events.filter((event) => event.name === 'store.game_updated' && event.payload.game_id === gameId);

  it('changes only the fields sent and answers 200 with the full StoreGame row; audits the change and emits store.game_updated', async () => {
    const game = await linkedGame();
    const res = await patchGame(t, editor, game.id, { title: 'Renamed', status: 'published', required_age: 16 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ...game,
      title: 'Renamed',
      status: 'published',
      required_age: 16,
      updated_at: expect.any(String),
    });
    expect(new Date(body.updated_at).getTime()).toBeGreaterThan(new Date(game.updated_at as string).getTime());

    const row = await t.db.selectFrom('store_games').selectAll().where('id', '=', game.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      title: 'Renamed',
      status: 'published',
      required_age: 16,
      summary: 'Short',
      description: 'Long',
      release_date: '2024-01-02',
      metadata: { tags: ['x'] },
    });
    expect(row.updated_at.toISOString()).toBe(body.updated_at);
    expect(row.created_at.toISOString()).toBe(game.created_at);
    expect(await linkIds(t, game.id)).toEqual({
      genre_ids: [genres[0]!.id],
      developer_ids: [developers[0]!.id],
      publisher_ids: [publishers[0]!.id],
    });

    const audits = await auditRows(t, 'store.game.update', game.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      actor_id: editor.id,
      target_type: 'store_game',
      request_id: res.headers['x-request-id'],
      summary: {
        before: { title: 'A game', status: 'draft', required_age: 0 },
        after: { title: 'Renamed', status: 'published', required_age: 16 },
      },
    });
    const outbox = await t.db
      .selectFrom('event_outbox')
      .selectAll()
      .where('name', '=', 'store.game_updated')
      .where('request_id', '=', res.headers['x-request-id'] as string)
      .execute();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({
      kind: 'dashboard',
      actor_id: editor.id,
      payload: { game_id: game.id, slug: game.slug, status: 'published', changed: ['title', 'status', 'required_age'] },
    });
    await eventually(() =>
      expect(updatedEvents(game.id).map((event) => [event.kind, event.payload, event.actorId])).toEqual([
        [
          'dashboard',
          { game_id: game.id, slug: game.slug, status: 'published', changed: ['title', 'status', 'required_age'] },
          editor.id,
        ],
      ]),
    );
  });

  it.each([
    {
      name: 'no link list: every link stays',
      patch: {},
      expected: () => ({
        genre_ids: [genres[0]!.id],
        developer_ids: [developers[0]!.id],
        publisher_ids: [publishers[0]!.id],
      }),
    },
    {
      name: 'genre_ids only: genres replaced, the rest stays',
      patch: () => ({ genre_ids: [genres[2]!.id, genres[1]!.id] }),
      expected: () => ({
        genre_ids: [genres[1]!.id, genres[2]!.id],
        developer_ids: [developers[0]!.id],
        publisher_ids: [publishers[0]!.id],
      }),
    },
    {
      name: '[] clears one list only',
      patch: () => ({ developer_ids: [] }),
      expected: () => ({ genre_ids: [genres[0]!.id], developer_ids: [], publisher_ids: [publishers[0]!.id] }),
    },
    {
      name: 'every list replaced or cleared',
      patch: () => ({
        genre_ids: [],
        developer_ids: [developers[1]!.id, developers[0]!.id],
        publisher_ids: [publishers[1]!.id],
      }),
      expected: () => ({
        genre_ids: [],
        developer_ids: [developers[0]!.id, developers[1]!.id],
        publisher_ids: [publishers[1]!.id],
      }),
    },
    {
      name: 'repeated ids are stored once',
      patch: () => ({ publisher_ids: [publishers[1]!.id, publishers[1]!.id] }),
      expected: () => ({
        genre_ids: [genres[0]!.id],
        developer_ids: [developers[0]!.id],
        publisher_ids: [publishers[1]!.id],
      }),
    },
  ])('links: $name', async ({ patch, expected }) => {
    const game = await linkedGame();
    const payload = { title: 'Links', ...(typeof patch === 'function' ? patch() : patch) };
    const res = await patchGame(t, editor, game.id, payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Links', ...expected() });
    expect(await linkIds(t, game.id)).toEqual(expected());
  });

  it('clears nullable fields with null, replaces metadata whole, and audits only what changed', async () => {
    const game = await linkedGame();
    const res = await patchGame(t, editor, game.id, {
      summary: null,
      description: null,
      release_date: null,
      website: null,
      legal_notice: null,
      content_description: null,
      metadata: { rating: 'E' },
      title: game.title,
      genre_ids: [genres[0]!.id],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      summary: null,
      description: null,
      release_date: null,
      website: null,
      legal_notice: null,
      content_description: null,
      metadata: { rating: 'E' },
    });
    const [audit] = await auditRows(t, 'store.game.update', game.id);
    // title and genre_ids were sent unchanged: not part of the change.
    expect(audit?.summary).toEqual({
      before: {
        summary: 'Short',
        description: 'Long',
        release_date: '2024-01-02',
        website: 'https://example.test',
        legal_notice: 'Legal',
        content_description: 'Mild',
        metadata: { keys: ['tags'] },
      },
      after: {
        summary: null,
        description: null,
        release_date: null,
        website: null,
        legal_notice: null,
        content_description: null,
        metadata: { keys: ['rating'] },
      },
    });
  });

  it('moves the status directly between draft, published and hidden in any order', async () => {
    const game = await createGame(t, editor);
    for (const status of ['hidden', 'published', 'draft', 'published', 'hidden', 'draft']) {
      const res = await patchGame(t, editor, game.id, { status });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe(status);
    }
    expect(
      (await auditRows(t, 'store.game.update', game.id)).map(
        (a) => (a.summary as { after: { status: string } }).after.status,
      ),
    ).toEqual(['hidden', 'published', 'draft', 'published', 'hidden', 'draft']);
  });

  it('cuts long texts in the audit row, keeping the stored value whole', async () => {
    const game = await createGame(t, editor);
    const description = 'd'.repeat(20_000);
    expect((await patchGame(t, editor, game.id, { description })).statusCode).toBe(200);
    const [audit] = await auditRows(t, 'store.game.update', game.id);
    expect(audit?.summary).toEqual({ before: { description: null }, after: { description: `${'d'.repeat(200)}…` } });
    const row = await t.db
      .selectFrom('store_games')
      .select('description')
      .where('id', '=', game.id)
      .executeTakeFirstOrThrow();
    expect(row.description).toBe(description);
  });

  it.each([
    { name: 'an empty body', payload: (_game: Record<string, unknown>) => ({}) },
    {
      name: 'the same values again',
      payload: (game: Record<string, unknown>) => ({
        title: 'A game',
        status: 'draft',
        summary: 'Short',
        metadata: { tags: ['x'] },
        genre_ids: game.genre_ids,
      }),
    },
  ])('answers 200 with the row for $name, writing, auditing and emitting nothing', async ({ payload }) => {
    const game = await linkedGame();
    const before = await storeState(t);
    const res = await patchGame(t, editor, game.id, payload(game));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(game);
    expect(await storeState(t)).toEqual(before);
  });

  it('answers 404 game_not_found for an unknown game, changing nothing', async () => {
    const before = await storeState(t);
    const res = await patchGame(t, editor, 2_147_483_647, { title: 'Ghost' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'game_not_found' });
    expect(await storeState(t)).toEqual(before);
  });

  it('answers 404 game_not_found for a deleted game', async () => {
    const game = await createGame(t, editor);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/admin/store/games/${game.id}`, token: editor.token })).statusCode,
    ).toBe(204);
    const res = await patchGame(t, editor, game.id, { title: 'Back' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'game_not_found' });
  });

  it('answers 422 invalid_request naming the unknown linked ids, changing neither fields nor links', async () => {
    const game = await linkedGame();
    const before = await storeState(t);
    const res = await patchGame(t, editor, game.id, {
      title: 'Never',
      genre_ids: [genres[1]!.id, 424_242],
      developer_ids: [],
      publisher_ids: [515_151, publishers[1]!.id, 525_252],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'unknown linked ids', genre_ids: [424_242], publisher_ids: [515_151, 525_252] },
    });
    expect(await storeState(t)).toEqual(before);
    expect(updatedEvents(game.id)).toEqual([]);
  });

  it('answers 422 for a genre deleted before the update', async () => {
    const game = await createGame(t, editor);
    const doomed = await createTerm(t, editor, 'genres', `Doomed ${uniqueSlug()}`);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/admin/store/genres/${doomed.id}`, token: editor.token }))
        .statusCode,
    ).toBe(204);
    const res = await patchGame(t, editor, game.id, { genre_ids: [doomed.id] });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual({ reason: 'unknown linked ids', genre_ids: [doomed.id] });
  });

  it('answers 409 conflict when the new slug is taken, changing nothing', async () => {
    const taken = await createGame(t, editor);
    const game = await createGame(t, editor);
    const before = await storeState(t);
    const res = await patchGame(t, editor, game.id, { slug: taken.slug, title: 'Clash' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', details: { reason: 'slug taken', slug: taken.slug } });
    expect(await storeState(t)).toEqual(before);
  });

  it('lets a game take a new free slug', async () => {
    const game = await createGame(t, editor);
    const slug = uniqueSlug('renamed');
    const res = await patchGame(t, editor, game.id, { slug });
    expect(res.json().slug).toBe(slug);
    expect(
      (await t.request({ method: 'GET', url: `/v1/admin/store/games/${game.id}`, token: reader.token })).json().slug,
    ).toBe(slug);
  });

  it('refuses a caller with store.read only (403 naming store.write) and an anonymous one (401), changing nothing', async () => {
    const game = await createGame(t, editor);
    const before = await storeState(t);
    const denied = await patchGame(t, reader, game.id, { title: 'Nope' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'forbidden', details: { perm: 'store.write' } });
    const anonymous = await patchGame(t, null, game.id, { title: 'Nope' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'missing_token' });
    expect(await storeState(t)).toEqual(before);
  });

  describe('input bounds (the same as create)', () => {
    let gameId: number;
    beforeAll(async () => {
      gameId = (await createGame(t, editor)).id;
    });

    it.each(boundCases('accepted'))('accepts $field = $shown', async ({ field, value }) => {
      const res = await patchGame(t, editor, gameId, { [field]: value });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()[field]).toEqual(value);
    });

    it.each([
      ...boundCases('refused'),
      { field: 'slug', value: null, shown: 'null' },
      { field: 'metadata', value: null, shown: 'null' },
      { field: 'extra', value: 1, shown: 'an unknown field' },
      { field: 'key', value: 'x', shown: 'an unknown field' },
    ])('refuses $field = $shown with a SchemaError naming it, changing nothing', async ({ field, value }) => {
      const before = await storeState(t);
      const res = await patchGame(t, editor, gameId, { [field]: value });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ success: false, error: { name: 'SchemaError' } });
      expect(
        body.error.issues.map((issue: { path: unknown[]; keys?: string[] }) => issue.keys?.[0] ?? issue.path[0]),
      ).toContain(field);
      expect(await storeState(t)).toEqual(before);
    });

    it('refuses a missing body with a SchemaError', async () => {
      const res = await t.request({ method: 'PATCH', url: `/v1/admin/store/games/${gameId}`, token: editor.token });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    });
  });
});
