import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';

/**
 * Achievement definitions of the catalog: list, get, create, delete and operation 1
 * (updateCatalogAchievement). Each success is checked in the table and the audit log; each
 * refusal is checked to leave the table, the audit log and the outbox untouched.
 */

type Db = TestApp['db'];
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const USER_AGENT = 'catalog-test/1.0';
const BASE = '/v1/admin/catalog/achievements';

let counter = 0;
/** A key no other test uses (keys are unique across the file's database). */
const uniqueKey = (prefix = 'ach') => `${prefix}.${++counter}_${randomUUID().slice(0, 6)}`;

function call(
  t: TestApp,
  caller: TestUser | null,
  method: Method,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url,
    token: caller?.token,
    headers: { 'user-agent': USER_AGENT },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

const achievementRow = (db: Db, id: string) =>
  db.selectFrom('catalog_achievements').selectAll().where('id', '=', id).executeTakeFirst();

/** What a refusal must leave as it was: the achievements, and the audit log's and outbox's sizes. */
const achievementState = (db: Db) => storedState(db, { catalog_achievements: ['id'] }, ['audit_log', 'event_outbox']);

/** A SchemaError whose issues include one matching `issue`. */

function auditRow(
  actor: TestUser,
  requestId: string,
  fields: { action: string; target_id: string; reason?: string | null; summary: unknown },
) {
  return {
    id: expect.any(String),
    created_at: expect.any(Date),
    actor_id: actor.id,
    action: fields.action,
    target_type: 'achievement',
    target_id: fields.target_id,
    request_id: requestId,
    ip: '127.0.0.1',
    user_agent: USER_AGENT,
    reason: fields.reason ?? null,
    summary: fields.summary,
  };
}

describe('catalog achievements: create, get, update (operation 1), delete', () => {
  let t: TestApp;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['content.write', 'content.read']);
    reader = await createUser(t.db, ['content.read']);
    outsider = await createUser(t.db, ['store.write', 'plans.read']);
  });
  afterAll(async () => {
    await t.close();
  });

  /** An achievement made through the API (setup for the update and delete tests). */
  async function created(fields: Record<string, unknown> = {}) {
    const response = await call(t, editor, 'POST', BASE, { key: uniqueKey(), name: 'First win', ...fields });
    expect(response.statusCode).toBe(201);
    return (await achievementRow(t.db, response.json().id))!;
  }

  describe('POST /v1/admin/catalog/achievements', () => {
    it('creates with the spec defaults, answers 201 {id}, and audits', async () => {
      const key = uniqueKey();
      const response = await call(t, editor, 'POST', BASE, { key, name: 'First win' });
      expect(response.statusCode).toBe(201);
      const { id } = response.json();
      expect(response.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(await achievementRow(t.db, id)).toEqual({
        id,
        key,
        name: 'First win',
        description: null,
        icon_path: null,
        reward_credits: 0,
        is_active: true,
        sort_order: 0,
        created_by: editor.id,
        updated_by: editor.id,
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        auditRow(editor, requestIdOf(response), {
          action: 'catalog.achievement.create',
          target_id: id,
          summary: { after: { key, name: 'First win', reward_credits: 0, is_active: true, sort_order: 0 } },
        }),
      ]);
    });

    it('stores every field given, at the upper bounds', async () => {
      const key = `a${'b'.repeat(63)}`;
      const body = {
        key,
        name: 'n'.repeat(100),
        description: 'd'.repeat(500),
        icon_path: 'i'.repeat(500),
        reward_credits: 1_000_000,
        is_active: false,
        sort_order: 10_000,
      };
      const response = await call(t, editor, 'POST', BASE, body);
      expect(response.statusCode).toBe(201);
      expect(await achievementRow(t.db, response.json().id)).toMatchObject(body);
      const lowest = await call(t, editor, 'POST', BASE, {
        key: uniqueKey(),
        name: 'x',
        sort_order: -10_000,
        reward_credits: 0,
      });
      expect(lowest.statusCode).toBe(201);
    });

    it('refuses a taken key with 409 conflict, storing nothing', async () => {
      const existing = await created();
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'POST', BASE, { key: existing.key, name: 'Another' }),
        409,
        {
          error: 'conflict',
          details: { reason: 'achievement key taken', key: existing.key },
        },
      );
    });

    it.each([
      {
        name: 'a key with a capital',
        body: { key: 'Wins', name: 'x' },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      {
        name: 'a key starting with a digit',
        body: { key: '1win', name: 'x' },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      {
        name: 'a 65-character key',
        body: { key: `a${'b'.repeat(64)}`, name: 'x' },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      { name: 'no key', body: { name: 'x' }, issue: { path: ['key'], code: 'invalid_type' } },
      { name: 'an empty name', body: { key: 'k', name: '' }, issue: { path: ['name'], code: 'too_small', minimum: 1 } },
      {
        name: 'a 101-character name',
        body: { key: 'k', name: 'n'.repeat(101) },
        issue: { path: ['name'], code: 'too_big', maximum: 100 },
      },
      {
        name: 'a 501-character description',
        body: { key: 'k', name: 'x', description: 'd'.repeat(501) },
        issue: { path: ['description'], code: 'too_big', maximum: 500 },
      },
      {
        name: 'a 501-character icon_path',
        body: { key: 'k', name: 'x', icon_path: 'i'.repeat(501) },
        issue: { path: ['icon_path'], code: 'too_big', maximum: 500 },
      },
      {
        name: 'negative reward_credits',
        body: { key: 'k', name: 'x', reward_credits: -1 },
        issue: { path: ['reward_credits'], code: 'too_small', minimum: 0 },
      },
      {
        name: 'reward_credits over 1000000',
        body: { key: 'k', name: 'x', reward_credits: 1_000_001 },
        issue: { path: ['reward_credits'], code: 'too_big', maximum: 1_000_000 },
      },
      {
        name: 'fractional reward_credits',
        body: { key: 'k', name: 'x', reward_credits: 1.5 },
        issue: { path: ['reward_credits'], code: 'invalid_type', expected: 'int' },
      },
      {
        name: 'sort_order under -10000',
        body: { key: 'k', name: 'x', sort_order: -10_001 },
        issue: { path: ['sort_order'], code: 'too_small', minimum: -10_000 },
      },
      {
        name: 'sort_order over 10000',
        body: { key: 'k', name: 'x', sort_order: 10_001 },
        issue: { path: ['sort_order'], code: 'too_big', maximum: 10_000 },
      },
      {
        name: 'a non-boolean is_active',
        body: { key: 'k', name: 'x', is_active: 'yes' },
        issue: { path: ['is_active'], code: 'invalid_type' },
      },
      {
        name: 'an unknown field',
        body: { key: 'k', name: 'x', points: 3 },
        issue: { code: 'unrecognized_keys', keys: ['points'] },
      },
    ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'POST', BASE, body),
        400,
        schemaError(issue),
      );
    });
  });

  describe('GET /v1/admin/catalog/achievements/{id}', () => {
    it('answers the full definition to a content reader', async () => {
      const row = await created({
        description: 'Win a match',
        icon_path: 'icons/win.png',
        reward_credits: 50,
        sort_order: -3,
      });
      const response = await call(t, reader, 'GET', `${BASE}/${row.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: row.id,
        key: row.key,
        name: 'First win',
        description: 'Win a match',
        icon_path: 'icons/win.png',
        reward_credits: 50,
        is_active: true,
        sort_order: -3,
        created_by: editor.id,
        updated_by: editor.id,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
      });
    });

    it('answers 404 not_found for an unknown id and 400 for an id that is not a uuid', async () => {
      const missing = await call(t, reader, 'GET', `${BASE}/${randomUUID()}`);
      expect({ status: missing.statusCode, body: missing.json() }).toEqual({
        status: 404,
        body: { error: 'not_found' },
      });
      const malformed = await call(t, reader, 'GET', `${BASE}/42`);
      expect({ status: malformed.statusCode, body: malformed.json() }).toEqual({
        status: 400,
        body: schemaError({ path: ['id'], format: 'guid' }),
      });
    });
  });

  describe('PATCH /v1/admin/catalog/achievements/{id} (operation 1)', () => {
    it('changes only the fields sent, answers 204 and audits the changed fields before and after', async () => {
      const row = await created({ description: 'old', icon_path: 'icons/old.png', reward_credits: 10, sort_order: 5 });
      const response = await call(t, editor, 'PATCH', `${BASE}/${row.id}`, { name: 'Renamed', reward_credits: 25 });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const after = await achievementRow(t.db, row.id);
      expect(after).toEqual({ ...row, name: 'Renamed', reward_credits: 25, updated_at: expect.any(Date) });
      expect(after!.updated_at.getTime()).toBeGreaterThanOrEqual(row.updated_at.getTime());
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        auditRow(editor, requestIdOf(response), {
          action: 'catalog.achievement.update',
          target_id: row.id,
          summary: {
            key: row.key,
            before: { name: 'First win', reward_credits: 10 },
            after: { name: 'Renamed', reward_credits: 25 },
          },
        }),
      ]);
    });

    it.each([
      { field: 'name', value: 'n'.repeat(100) },
      { field: 'description', value: 'd'.repeat(500) },
      { field: 'icon_path', value: 'icons/new.svg' },
      { field: 'reward_credits', value: 1_000_000 },
      { field: 'is_active', value: false },
      { field: 'sort_order', value: -10_000 },
    ])('updates $field alone and keeps every other field', async ({ field, value }) => {
      const other = await created({
        description: 'keep',
        icon_path: 'icons/keep.png',
        reward_credits: 7,
        sort_order: 3,
      });
      const row = await created({ description: 'keep', icon_path: 'icons/keep.png', reward_credits: 7, sort_order: 3 });
      const response = await call(t, editor, 'PATCH', `${BASE}/${row.id}`, { [field]: value });
      expect(response.statusCode).toBe(204);
      expect(await achievementRow(t.db, row.id)).toEqual({ ...row, [field]: value, updated_at: expect.any(Date) });
      expect(await achievementRow(t.db, other.id)).toEqual(other);
    });

    it('clears description and icon_path with null', async () => {
      const row = await created({ description: 'text', icon_path: 'icons/x.png' });
      const response = await call(t, editor, 'PATCH', `${BASE}/${row.id}`, { description: null, icon_path: null });
      expect(response.statusCode).toBe(204);
      expect(await achievementRow(t.db, row.id)).toMatchObject({ description: null, icon_path: null, name: row.name });
      const [audit] = await auditOf(t.db, requestIdOf(response));
      expect(audit?.summary).toEqual({
        key: row.key,
        before: { description: 'text', icon_path: 'icons/x.png' },
        after: { description: null, icon_path: null },
      });
    });

    it('writes and audits nothing when the body changes nothing', async () => {
      const row = await created({ reward_credits: 5 });
      const response = await call(t, editor, 'PATCH', `${BASE}/${row.id}`, { reward_credits: 5, name: row.name });
      expect(response.statusCode).toBe(204);
      expect(await achievementRow(t.db, row.id)).toEqual(row);
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    });

    it("audits racing edits as a chain: each one's before is the previous one's after", async () => {
      const row = await created({ reward_credits: 0 });
      const values = Array.from({ length: 12 }, (_, i) => 100 + i);
      const responses = await Promise.all(
        values.map((reward_credits) => call(t, editor, 'PATCH', `${BASE}/${row.id}`, { reward_credits })),
      );
      expect(responses.map((response) => response.statusCode)).toEqual(values.map(() => 204));
      const audits = await t.db
        .selectFrom('audit_log')
        .select(['summary', 'created_at', 'id'])
        .where('target_id', '=', row.id)
        .where('action', '=', 'catalog.achievement.update')
        .execute();
      expect(audits).toHaveLength(values.length);
      // Walk the chain from the stored 0: every edit saw the one before it, none saw a stale row.
      const byBefore = new Map(
        audits.map(({ summary }) => [
          (summary as { before: { reward_credits: number } }).before.reward_credits,
          summary,
        ]),
      );
      let current = 0;
      for (let step = 0; step < values.length; step += 1) {
        const next = byBefore.get(current) as { after: { reward_credits: number } } | undefined;
        expect(next, `an edit whose before is ${current}`).toBeDefined();
        current = next!.after.reward_credits;
      }
      expect((await achievementRow(t.db, row.id))?.reward_credits).toBe(current);
    });

    it('answers 404 not_found for an unknown id, storing nothing', async () => {
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'PATCH', `${BASE}/${randomUUID()}`, { name: 'x' }),
        404,
        {
          error: 'not_found',
        },
      );
    });

    it('refuses a key in the body: the key cannot change', async () => {
      const row = await created();
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'PATCH', `${BASE}/${row.id}`, { key: 'renamed', name: 'x' }),
        400,
        schemaError({
          path: ['key'],
          code: 'invalid_type',
          expected: 'never',
          message: 'key is immutable after creation',
        }),
      );
    });

    it.each([
      {
        name: 'an empty body',
        body: {},
        issue: {
          path: [],
          code: 'custom',
          message: 'provide at least one of name, description, icon_path, reward_credits, is_active, sort_order',
        },
      },
      { name: 'a null name', body: { name: null }, issue: { path: ['name'], code: 'invalid_type' } },
      { name: 'an empty name', body: { name: '' }, issue: { path: ['name'], code: 'too_small', minimum: 1 } },
      {
        name: 'a 101-character name',
        body: { name: 'n'.repeat(101) },
        issue: { path: ['name'], code: 'too_big', maximum: 100 },
      },
      {
        name: 'a 501-character description',
        body: { description: 'd'.repeat(501) },
        issue: { path: ['description'], code: 'too_big', maximum: 500 },
      },
      {
        name: 'a 501-character icon_path',
        body: { icon_path: 'i'.repeat(501) },
        issue: { path: ['icon_path'], code: 'too_big', maximum: 500 },
      },
      {
        name: 'null reward_credits',
        body: { reward_credits: null },
        issue: { path: ['reward_credits'], code: 'invalid_type' },
      },
      {
        name: 'reward_credits -1',
        body: { reward_credits: -1 },
        issue: { path: ['reward_credits'], code: 'too_small', minimum: 0 },
      },
      {
        name: 'reward_credits 1000001',
        body: { reward_credits: 1_000_001 },
        issue: { path: ['reward_credits'], code: 'too_big', maximum: 1_000_000 },
      },
      { name: 'null is_active', body: { is_active: null }, issue: { path: ['is_active'], code: 'invalid_type' } },
      {
        name: 'sort_order -10001',
        body: { sort_order: -10_001 },
        issue: { path: ['sort_order'], code: 'too_small', minimum: -10_000 },
      },
      {
        name: 'sort_order 10001',
        body: { sort_order: 10_001 },
        issue: { path: ['sort_order'], code: 'too_big', maximum: 10_000 },
      },
      {
        name: 'an unknown field',
        body: { name: 'x', points: 1 },
        issue: { code: 'unrecognized_keys', keys: ['points'] },
      },
    ])('refuses $name with 400 SchemaError, changing nothing', async ({ body, issue }) => {
      const row = await created();
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'PATCH', `${BASE}/${row.id}`, body),
        400,
        schemaError(issue),
      );
    });

    it('refuses an id that is not a uuid with 400', async () => {
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'PATCH', `${BASE}/not-a-uuid`, { name: 'x' }),
        400,
        schemaError({ path: ['id'], format: 'guid' }),
      );
    });
  });

  describe('DELETE /v1/admin/catalog/achievements/{id}', () => {
    it('deletes, answers 204 and audits the removed definition with the reason', async () => {
      const row = await created({ description: 'gone soon', reward_credits: 3 });
      const response = await call(
        t,
        editor,
        'DELETE',
        `${BASE}/${row.id}?reason=${encodeURIComponent('retired event')}`,
      );
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(await achievementRow(t.db, row.id)).toBeUndefined();
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        auditRow(editor, requestIdOf(response), {
          action: 'catalog.achievement.delete',
          target_id: row.id,
          reason: 'retired event',
          summary: {
            before: {
              key: row.key,
              name: 'First win',
              description: 'gone soon',
              icon_path: null,
              reward_credits: 3,
              is_active: true,
              sort_order: 0,
            },
          },
        }),
      ]);
      // Deleted means gone: a second delete and a read both answer 404.
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'DELETE', `${BASE}/${row.id}`),
        404,
        { error: 'not_found' },
      );
      expect((await call(t, reader, 'GET', `${BASE}/${row.id}`)).statusCode).toBe(404);
    });

    it('frees the key for a new definition', async () => {
      const row = await created();
      await call(t, editor, 'DELETE', `${BASE}/${row.id}`);
      expect((await call(t, editor, 'POST', BASE, { key: row.key, name: 'Reborn' })).statusCode).toBe(201);
    });

    it('refuses a reason over 300 characters', async () => {
      const row = await created();
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, editor, 'DELETE', `${BASE}/${row.id}?reason=${'r'.repeat(301)}`),
        400,
        schemaError({ path: ['reason'], code: 'too_big', maximum: 300 }),
      );
    });
  });

  describe('who may call', () => {
    const someId = randomUUID();
    it.each([
      { name: 'list', method: 'GET' as const, url: BASE, perm: 'content.read' },
      { name: 'get', method: 'GET' as const, url: `${BASE}/${someId}`, perm: 'content.read' },
      { name: 'create', method: 'POST' as const, url: BASE, perm: 'content.write', body: { key: 'denied', name: 'x' } },
      {
        name: 'update',
        method: 'PATCH' as const,
        url: `${BASE}/${someId}`,
        perm: 'content.write',
        body: { name: 'x' },
      },
      { name: 'delete', method: 'DELETE' as const, url: `${BASE}/${someId}`, perm: 'content.write' },
    ])('$name: 401 without a token, 403 naming $perm without it', async ({ method, url, perm, body }) => {
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, null, method, url, body),
        401,
        { error: 'missing_token' },
      );
      await expectRefusedUnchanged(
        () => achievementState(t.db),
        () => call(t, outsider, method, url, body),
        403,
        {
          error: 'forbidden',
          details: { perm },
        },
      );
      if (perm === 'content.write')
        await expectRefusedUnchanged(
          () => achievementState(t.db),
          () => call(t, reader, method, url, body),
          403,
          {
            error: 'forbidden',
            details: { perm },
          },
        );
    });
  });
});

describe('GET /v1/admin/catalog/achievements (paged list)', () => {
  let t: TestApp;
  let reader: TestUser;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp();
    reader = await createUser(t.db, ['content.read']);
    const seeds = [
      { key: 'wins.first', name: 'First win', sort_order: 2, is_active: true },
      { key: 'wins.tenth', name: 'Tenth win', sort_order: 1, is_active: true },
      // Its name sorts after 'Tenth win' but its key before 'wins.tenth': ties must follow the name.
      { key: 'social.friend', name: 'Zealous friend', sort_order: 1, is_active: false },
      { key: 'streak_7', name: 'Weekly streak 100%', sort_order: -5, is_active: true },
    ];
    for (const seed of seeds) {
      // One at a time with distinct creation times, so created_at sorting is deterministic.
      const row = await t.db
        .insertInto('catalog_achievements')
        .values({
          ...seed,
          description: null,
          icon_path: null,
          created_by: null,
          updated_by: null,
          created_at: new Date(Date.now() - 60_000 + ids.size * 1_000),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(seed.key, row.id);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (query = '') => call(t, reader, 'GET', `${BASE}${query}`);
  const keysOf = (response: LightMyRequestResponse) =>
    (response.json().data as Array<{ key: string }>).map((row) => row.key);

  it('defaults to sort_order ascending (ties by name), page 1, 25 per page, with the total', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    expect(response.json().meta).toEqual({ page: 1, per_page: 25, total: 4 });
    expect(keysOf(response)).toEqual(['streak_7', 'wins.tenth', 'social.friend', 'wins.first']);
    expect(response.json().data[0]).toEqual({
      id: ids.get('streak_7'),
      key: 'streak_7',
      name: 'Weekly streak 100%',
      description: null,
      icon_path: null,
      reward_credits: 0,
      is_active: true,
      sort_order: -5,
      created_by: null,
      updated_by: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it.each([
    {
      name: 'sort_order:desc',
      query: '?sort=sort_order:desc',
      keys: ['wins.first', 'wins.tenth', 'social.friend', 'streak_7'],
    },
    { name: 'name:asc', query: '?sort=name:asc', keys: ['wins.first', 'wins.tenth', 'streak_7', 'social.friend'] },
    { name: 'name:desc', query: '?sort=name:desc', keys: ['social.friend', 'streak_7', 'wins.tenth', 'wins.first'] },
    {
      name: 'created_at:asc',
      query: '?sort=created_at:asc',
      keys: ['wins.first', 'wins.tenth', 'social.friend', 'streak_7'],
    },
    {
      name: 'created_at:desc',
      query: '?sort=created_at:desc',
      keys: ['streak_7', 'social.friend', 'wins.tenth', 'wins.first'],
    },
    { name: 'q over the key', query: '?q=WINS.', keys: ['wins.tenth', 'wins.first'] },
    { name: 'q over the name', query: '?q=friend', keys: ['social.friend'] },
    { name: 'q with a literal %', query: `?q=${encodeURIComponent('100%')}`, keys: ['streak_7'] },
    { name: 'q with a literal _ (no wildcard)', query: '?q=wins_', keys: [] },
    { name: 'inactive only', query: '?is_active=false', keys: ['social.friend'] },
    { name: 'active only', query: '?is_active=true&sort=name:asc', keys: ['wins.first', 'wins.tenth', 'streak_7'] },
  ])('answers $name', async ({ query, keys }) => {
    const response = await list(query);
    expect(response.statusCode).toBe(200);
    expect(keysOf(response)).toEqual(keys);
    expect(response.json().meta.total).toBe(keys.length);
  });

  it('pages with the total of the whole match', async () => {
    const second = await list('?per_page=3&page=2');
    expect(second.json().meta).toEqual({ page: 2, per_page: 3, total: 4 });
    expect(keysOf(second)).toEqual(['wins.first']);
    const beyond = await list('?per_page=3&page=3');
    expect(beyond.json()).toEqual({ data: [], meta: { page: 3, per_page: 3, total: 4 } });
  });

  it.each([
    { name: 'an unknown sort field', query: '?sort=key:asc', path: ['sort'] },
    { name: 'per_page over 100', query: '?per_page=101', path: ['per_page'] },
    { name: 'page 0', query: '?page=0', path: ['page'] },
    { name: 'an is_active that is not true or false', query: '?is_active=yes', path: ['is_active'] },
    { name: 'a q over 200 characters', query: `?q=${'q'.repeat(201)}`, path: ['q'] },
  ])('refuses $name with 400 SchemaError', async ({ query, path }) => {
    const response = await list(query);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: schemaError({ path }),
    });
  });
});
