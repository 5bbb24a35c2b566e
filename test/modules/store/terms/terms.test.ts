import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { auditRows, createGame, createTerm, linkIds, storeState, type TermKind } from '../fixtures.js';

/** Genres, developers and publishers: the same staff routes for each kind. */

type App = Awaited<ReturnType<typeof startTestApp>>;

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
const KINDS: Array<{
  kind: TermKind;
  noun: string;
  table: 'store_genres' | 'store_developers' | 'store_publishers';
  linkField: string;
}> = [
  { kind: 'genres', noun: 'genre', table: 'store_genres', linkField: 'genre_ids' },
  { kind: 'developers', noun: 'developer', table: 'store_developers', linkField: 'developer_ids' },
  { kind: 'publishers', noun: 'publisher', table: 'store_publishers', linkField: 'publisher_ids' },
];

describe.each(KINDS)('store $kind', ({ kind, noun, table, linkField }) => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['store.read', 'store.write']);
    reader = await createUser(t.db, ['store.read']);
    outsider = await createUser(t.db, ['content.read']);
  });
  afterAll(async () => t.close());

  const path = `/v1/admin/store/${kind}`;
  const post = (payload: unknown, user: TestUser = editor) =>
    t.request({ method: 'POST', url: path, token: user.token, payload: payload as object });
  const patch = (id: number | string, payload: unknown, user: TestUser = editor) =>
    t.request({ method: 'PATCH', url: `${path}/${id}`, token: user.token, payload: payload as object });
  const remove = (id: number | string, user: TestUser = editor) =>
    t.request({ method: 'DELETE', url: `${path}/${id}`, token: user.token });

  it(`creates a ${noun} (201), making its slug from the name, and audits it`, async () => {
    const res = await post({ name: '  Role-Playing (RPG) Ünïcode  ' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(Number),
      name: 'Role-Playing (RPG) Ünïcode',
      slug: 'role-playing-rpg-unicode',
      game_count: 0,
      created_at: ISO,
      updated_at: body.created_at,
    });
    expect(await t.db.selectFrom(table).select(['name', 'slug']).where('id', '=', body.id).execute()).toEqual([
      { name: 'Role-Playing (RPG) Ünïcode', slug: 'role-playing-rpg-unicode' },
    ]);
    const [audit] = await auditRows(t, `store.${noun}.create`, body.id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      target_type: `store_${noun}`,
      request_id: res.headers['x-request-id'],
      summary: { after: { name: 'Role-Playing (RPG) Ünïcode', slug: 'role-playing-rpg-unicode' } },
    });
  });

  it('takes an explicit slug', async () => {
    const res = await post({ name: 'Explicit', slug: 'my-own-slug' });
    expect(res.json()).toMatchObject({ name: 'Explicit', slug: 'my-own-slug' });
  });

  it.each([
    { name: 'a name of symbols only', payload: { name: '!!!' } },
    { name: 'an all-digit name', payload: { name: '1942' } },
  ])('answers 422 invalid_request when no slug can be made from $name, storing nothing', async ({ payload }) => {
    const before = await storeState(t);
    const res = await post(payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'no slug can be made from this name; send one', name: payload.name },
    });
    expect(await storeState(t)).toEqual(before);
    expect((await post({ ...payload, slug: `named-${payload.name === '!!!' ? 'bang' : 'year'}` })).statusCode).toBe(
      201,
    );
  });

  it.each([
    {
      name: 'a taken name in another case',
      first: { name: 'Casual' },
      second: { name: 'CASUAL', slug: 'casual-2' },
      details: { reason: `${noun} name taken`, name: 'CASUAL' },
    },
    {
      name: 'a taken slug',
      first: { name: 'Arcade', slug: 'arcade' },
      second: { name: 'Arcade Classics', slug: 'arcade' },
      details: { reason: `${noun} slug taken`, slug: 'arcade' },
    },
    {
      name: 'a taken derived slug',
      first: { name: 'Sim', slug: 'sports' },
      second: { name: 'Sports' },
      details: { reason: `${noun} slug taken`, slug: 'sports' },
    },
  ])('answers 409 conflict for $name, storing nothing', async ({ first, second, details }) => {
    expect((await post(first)).statusCode).toBe(201);
    const before = await storeState(t);
    const res = await post(second);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', details });
    expect(await storeState(t)).toEqual(before);
  });

  it.each([
    { name: 'no name', payload: {}, path: ['name'] },
    { name: 'a blank name', payload: { name: '   ' }, path: ['name'] },
    { name: 'a name of 101 characters', payload: { name: 'n'.repeat(101) }, path: ['name'] },
    { name: 'an all-digit slug', payload: { name: 'Digits', slug: '123' }, path: ['slug'] },
    { name: 'an upper-case slug', payload: { name: 'Upper', slug: 'Upper' }, path: ['slug'] },
    { name: 'a slug of 65 characters', payload: { name: 'Long slug', slug: `a${'b'.repeat(64)}` }, path: ['slug'] },
    { name: 'a slug starting with a hyphen', payload: { name: 'Hyphen', slug: '-x' }, path: ['slug'] },
    { name: 'an unknown field', payload: { name: 'Extra', extra: 1 }, path: [] },
  ])('refuses $name with a SchemaError', async ({ payload, path }) => {
    const before = await storeState(t);
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(res.json().error.issues[0].path).toEqual(path);
    expect(await storeState(t)).toEqual(before);
  });

  it('accepts a name of 100 characters and a slug of 64', async () => {
    const res = await post({ name: 'n'.repeat(100), slug: `a${'b'.repeat(63)}` });
    expect(res.statusCode).toBe(201);
  });

  it('lists with paging, total, q over name and slug, sorting and the number of linked games', async () => {
    const list = async (query: string) =>
      (await t.request({ method: 'GET', url: `${path}${query}`, token: reader.token })).json();
    const zeta = await createTerm(t, editor, kind, 'Zeta Listed', 'zeta-listed');
    const omega = await createTerm(t, editor, kind, 'Omega Listed', 'omega-listed');
    await createGame(t, editor, { [linkField]: [zeta.id] });
    await createGame(t, editor, { [linkField]: [zeta.id, omega.id], status: 'published' });

    const found = await list('?q=LISTED');
    expect(found.data.map((term: { name: string; game_count: number }) => [term.name, term.game_count])).toEqual([
      ['Omega Listed', 1],
      ['Zeta Listed', 2],
    ]);
    expect(found.meta).toEqual({ page: 1, per_page: 25, total: 2 });
    expect((await list('?q=omega-l')).data.map((term: { slug: string }) => term.slug)).toEqual(['omega-listed']);
    expect((await list('?q=listed&sort=name:desc&per_page=1')).data.map((term: { slug: string }) => term.slug)).toEqual(
      ['zeta-listed'],
    );
    expect(
      (await list('?q=listed&sort=created_at:asc&per_page=1&page=2')).data.map((term: { slug: string }) => term.slug),
    ).toEqual(['omega-listed']);
    const all = await list('?per_page=100');
    expect(all.meta.total).toBe(all.data.length);
    const bad = await t.request({ method: 'GET', url: `${path}?sort=slug:asc`, token: reader.token });
    expect(bad.statusCode).toBe(400);
  });

  it('renames (200 with the row), keeps the slug unless one is sent, and audits before and after', async () => {
    const term = await createTerm(t, editor, kind, 'Old Name');
    const renamed = await patch(term.id, { name: 'New Name' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: term.id, name: 'New Name', slug: 'old-name', game_count: 0 });
    const reslugged = await patch(term.id, { slug: 'new-name' });
    expect(reslugged.json()).toMatchObject({ name: 'New Name', slug: 'new-name' });
    expect((await auditRows(t, `store.${noun}.update`, term.id)).map((a) => [a.actor_id, a.summary])).toEqual([
      [editor.id, { before: { name: 'Old Name' }, after: { name: 'New Name' } }],
      [editor.id, { before: { slug: 'old-name' }, after: { slug: 'new-name' } }],
    ]);
    const caseOnly = await patch(term.id, { name: 'NEW NAME' });
    expect(caseOnly.json().name).toBe('NEW NAME');
  });

  it('answers 409 on a rename to a taken name or slug and 404 for an unknown id, changing nothing', async () => {
    const taken = await createTerm(t, editor, kind, 'Taken Name', 'taken-slug');
    const term = await createTerm(t, editor, kind, 'Free Name');
    const before = await storeState(t);
    const byName = await patch(term.id, { name: 'taken name' });
    expect(byName.statusCode).toBe(409);
    expect(byName.json()).toEqual({ error: 'conflict', details: { reason: `${noun} name taken`, name: 'taken name' } });
    const bySlug = await patch(term.id, { slug: taken.slug });
    expect(bySlug.json()).toEqual({ error: 'conflict', details: { reason: `${noun} slug taken`, slug: 'taken-slug' } });
    for (const res of [await patch(2_147_483_647, { name: 'Ghost' }), await remove(2_147_483_647)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
    }
    expect(await storeState(t)).toEqual(before);
  });

  it.each([
    { name: 'an empty body', payload: {}, status: 400 },
    { name: 'an unknown field', payload: { name: 'x', games: 1 }, status: 400 },
    { name: 'a blank name', payload: { name: '' }, status: 400 },
  ])('refuses a rename with $name', async ({ name, payload, status }) => {
    const term = await createTerm(t, editor, kind, `Rename refused: ${name}`);
    const res = await patch(term.id, payload);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
  });

  it('deletes (204): linked games lose the link and stay; audited with the number of games unlinked', async () => {
    const term = await createTerm(t, editor, kind, 'Short Lived');
    const other = await createTerm(t, editor, kind, 'Stays Linked');
    const first = await createGame(t, editor, { [linkField]: [term.id, other.id] });
    const second = await createGame(t, editor, { [linkField]: [term.id] });
    const res = await remove(term.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await t.db.selectFrom(table).select('id').where('id', '=', term.id).execute()).toEqual([]);
    expect((await linkIds(t, first.id))[linkField as 'genre_ids']).toEqual([other.id]);
    expect((await linkIds(t, second.id))[linkField as 'genre_ids']).toEqual([]);
    expect(
      await t.db
        .selectFrom('store_games')
        .select('id')
        .where('id', 'in', [first.id, second.id])
        .orderBy('id')
        .execute(),
    ).toEqual([{ id: first.id }, { id: second.id }]);
    const [audit] = await auditRows(t, `store.${noun}.delete`, term.id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      target_type: `store_${noun}`,
      request_id: res.headers['x-request-id'],
      summary: { before: { name: 'Short Lived', slug: 'short-lived' }, unlinked_games: 2 },
    });
    expect((await remove(term.id)).statusCode).toBe(404);
  });

  it.each([
    {
      name: 'list without store.read',
      method: 'GET' as const,
      url: () => path,
      user: () => outsider,
      perm: 'store.read',
    },
    {
      name: 'create with store.read only',
      method: 'POST' as const,
      url: () => path,
      user: () => reader,
      perm: 'store.write',
      payload: { name: 'Denied' },
    },
    {
      name: 'rename with store.read only',
      method: 'PATCH' as const,
      url: () => `${path}/1`,
      user: () => reader,
      perm: 'store.write',
      payload: { name: 'Denied' },
    },
    {
      name: 'delete with store.read only',
      method: 'DELETE' as const,
      url: () => `${path}/1`,
      user: () => reader,
      perm: 'store.write',
    },
  ])(
    '403 forbidden: $name (and 401 without a token), changing nothing',
    async ({ method, url, user, perm, payload }) => {
      await createTerm(t, editor, kind, `Guarded ${method}`);
      const before = await storeState(t);
      const denied = await t.request({ method, url: url(), token: user().token, payload });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({ error: 'forbidden', details: { perm } });
      const anonymous = await t.request({ method, url: url(), payload });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ error: 'missing_token' });
      expect(await storeState(t)).toEqual(before);
    },
  );
});
