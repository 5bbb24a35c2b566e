import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { storedState } from '../../helpers/stored-state.js';

/**
 * Plan tiers: operation 13 (upsertPlanTier, upsert by key, 204; `rulesetKey` must name an
 * existing ruleset) and the list ordered by rank. Successes are checked in the table and the
 * audit log; refusals are checked to leave the table and the audit log untouched.
 */

const URL = '/v1/admin/plans/tiers';
const USER_AGENT = 'plans-test/1.0';
type Db = TestApp['db'];

const tierRow = (db: Db, key: string) =>
  db.selectFrom('plan_tiers').selectAll().where('key', '=', key).executeTakeFirst();

/** What a refusal must leave as it was: the tiers, and the audit log's size. */
const tierState = (db: Db) => storedState(db, { plan_tiers: ['id'] });

describe('plan tiers', () => {
  let t: TestApp;
  let planner: TestUser;
  let reader: TestUser;
  let outsider: TestUser;
  const rulesetIds: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    planner = await createUser(t.db, ['plans.write']);
    reader = await createUser(t.db, ['plans.read']);
    outsider = await createUser(t.db, ['content.write']);
    for (const key of ['standard', 'premium']) {
      const response = await t.request({
        method: 'PUT',
        url: '/v1/admin/plans/rulesets',
        token: planner.token,
        payload: { key, name: key },
      });
      rulesetIds[key] = response.json().id;
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (payload: unknown, user: TestUser | null = planner) =>
    t.request({
      method: 'PUT',
      url: URL,
      token: user?.token,
      headers: { 'user-agent': USER_AGENT },
      payload: payload as object,
    });
  const list = (query = '', user: TestUser | null = reader) =>
    t.request({ method: 'GET', url: `${URL}${query}`, token: user?.token });

  function auditRow(requestId: string, targetId: string, summary: unknown) {
    return {
      id: expect.any(String),
      created_at: expect.any(Date),
      actor_id: planner.id,
      action: 'plans.tier.upsert',
      target_type: 'plan_tier',
      target_id: targetId,
      request_id: requestId,
      ip: '127.0.0.1',
      user_agent: USER_AGENT,
      reason: null,
      summary,
    };
  }

  describe('PUT /v1/admin/plans/tiers (operation 13)', () => {
    it('creates a tier linked to its ruleset, answers 204 and audits it', async () => {
      const response = await put({ key: 'starter', name: 'Starter', rank: 0, rulesetKey: 'standard' });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const row = await tierRow(t.db, 'starter');
      expect(row).toEqual({
        id: expect.any(String),
        key: 'starter',
        name: 'Starter',
        rank: 0,
        ruleset_id: rulesetIds.standard,
        description: null,
        updated_by: planner.id,
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        auditRow(requestIdOf(response), row!.id, {
          key: 'starter',
          created: true,
          before: null,
          after: { name: 'Starter', rank: 0, rulesetKey: 'standard', description: null },
        }),
      ]);
    });

    it('replaces an existing tier by key, keeping its id, and audits the changed fields', async () => {
      await put({ key: 'gold', name: 'Gold', rank: 5, rulesetKey: 'standard', description: 'Shiny' });
      const before = (await tierRow(t.db, 'gold'))!;
      const response = await put({ key: 'gold', name: 'Gold', rank: 7, rulesetKey: 'premium', description: 'Shiny' });
      expect(response.statusCode).toBe(204);
      expect(await tierRow(t.db, 'gold')).toEqual({
        ...before,
        rank: 7,
        ruleset_id: rulesetIds.premium,
        updated_at: expect.any(Date),
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([
        auditRow(requestIdOf(response), before.id, {
          key: 'gold',
          created: false,
          before: { rank: 5, rulesetKey: 'standard' },
          after: { rank: 7, rulesetKey: 'premium' },
        }),
      ]);
    });

    it('clears an omitted description (the tier is replaced as a whole)', async () => {
      await put({ key: 'silver', name: 'Silver', rank: 3, rulesetKey: 'standard', description: 'Less shiny' });
      expect((await put({ key: 'silver', name: 'Silver', rank: 3, rulesetKey: 'standard' })).statusCode).toBe(204);
      expect(await tierRow(t.db, 'silver')).toMatchObject({ description: null });
    });

    it('writes and audits nothing when the same tier is sent again', async () => {
      await put({ key: 'bronze', name: 'Bronze', rank: 1, rulesetKey: 'standard' });
      const before = await tierRow(t.db, 'bronze');
      const again = await put({ key: 'bronze', name: 'Bronze', rank: 1, rulesetKey: 'standard' });
      expect(again.statusCode).toBe(204);
      expect(await tierRow(t.db, 'bronze')).toEqual(before);
      expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
    });

    it('refuses a rulesetKey that names no ruleset with 422 invalid_request naming it, for new and existing tiers', async () => {
      const unknown = { error: 'invalid_request', details: { reason: 'unknown ruleset', rulesetKey: 'nope' } };
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put({ key: 'orphan', name: 'Orphan', rank: 0, rulesetKey: 'nope' }),
        422,
        unknown,
      );
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put({ key: 'starter', name: 'Starter', rank: 0, rulesetKey: 'nope' }),
        422,
        unknown,
      );
    });

    it('accepts every field at its bound', async () => {
      const key = `a${'b'.repeat(31)}`;
      const body = {
        key,
        name: 'n'.repeat(100),
        rank: 2_147_483_647,
        rulesetKey: 'premium',
        description: 'd'.repeat(500),
      };
      expect((await put(body)).statusCode).toBe(204);
      expect(await tierRow(t.db, key)).toMatchObject({
        name: body.name,
        rank: body.rank,
        description: body.description,
      });
    });

    const valid = { key: 'valid', name: 'Valid', rank: 0, rulesetKey: 'standard' };
    it.each([
      {
        name: 'a 33-character key',
        body: { ...valid, key: `a${'b'.repeat(32)}` },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      {
        name: 'a key with a dot',
        body: { ...valid, key: 'gold.plus' },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      {
        name: 'a key starting with a dash',
        body: { ...valid, key: '-gold' },
        issue: { path: ['key'], code: 'invalid_format' },
      },
      { name: 'an empty name', body: { ...valid, name: '' }, issue: { path: ['name'], code: 'too_small', minimum: 1 } },
      {
        name: 'a 101-character name',
        body: { ...valid, name: 'n'.repeat(101) },
        issue: { path: ['name'], code: 'too_big', maximum: 100 },
      },
      { name: 'rank -1', body: { ...valid, rank: -1 }, issue: { path: ['rank'], code: 'too_small', minimum: 0 } },
      {
        name: 'a fractional rank',
        body: { ...valid, rank: 1.5 },
        issue: { path: ['rank'], code: 'invalid_type', expected: 'int' },
      },
      {
        name: 'a rank past the integer range',
        body: { ...valid, rank: 2_147_483_648 },
        issue: { path: ['rank'], code: 'too_big' },
      },
      {
        name: 'no rank',
        body: { key: 'valid', name: 'Valid', rulesetKey: 'standard' },
        issue: { path: ['rank'], code: 'invalid_type' },
      },
      {
        name: 'no rulesetKey',
        body: { key: 'valid', name: 'Valid', rank: 0 },
        issue: { path: ['rulesetKey'], code: 'invalid_type' },
      },
      {
        name: 'an empty rulesetKey',
        body: { ...valid, rulesetKey: '' },
        issue: { path: ['rulesetKey'], code: 'too_small' },
      },
      {
        name: 'a 501-character description',
        body: { ...valid, description: 'd'.repeat(501) },
        issue: { path: ['description'], code: 'too_big', maximum: 500 },
      },
      {
        name: 'snake_case ruleset_key',
        body: { ...valid, ruleset_key: 'standard' },
        issue: { code: 'unrecognized_keys', keys: ['ruleset_key'] },
      },
    ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put(body),
        400,
        schemaError(issue),
      );
    });

    it('needs plans.write (401 without a token, 403 naming it otherwise)', async () => {
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put(valid, null),
        401,
        { error: 'missing_token' },
      );
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put(valid, outsider),
        403,
        { error: 'forbidden', details: { perm: 'plans.write' } },
      );
      await expectRefusedUnchanged(
        () => tierState(t.db),
        () => put(valid, reader),
        403,
        { error: 'forbidden', details: { perm: 'plans.write' } },
      );
    });
  });

  describe('GET /v1/admin/plans/tiers', () => {
    beforeAll(async () => {
      await t.db.deleteFrom('plan_tiers').execute();
      for (const [key, rank, rulesetKey] of [
        ['elite', 9, 'premium'],
        ['basic', 0, 'standard'],
        ['plus', 4, 'standard'],
        ['aplus', 4, 'premium'],
      ] as const) {
        expect((await put({ key, name: key.toUpperCase(), rank, rulesetKey })).statusCode).toBe(204);
      }
    });

    it('lists every tier by rank (ties by key), camelCase, with its ruleset key', async () => {
      const response = await list();
      expect(response.statusCode).toBe(200);
      expect(response.json().data.map((tier: { key: string; rank: number }) => [tier.key, tier.rank])).toEqual([
        ['basic', 0],
        ['aplus', 4],
        ['plus', 4],
        ['elite', 9],
      ]);
      const elite = (await tierRow(t.db, 'elite'))!;
      expect(response.json().data[3]).toEqual({
        id: elite.id,
        key: 'elite',
        name: 'ELITE',
        rank: 9,
        rulesetKey: 'premium',
        description: null,
        updatedBy: planner.id,
        createdAt: elite.created_at.toISOString(),
        updatedAt: elite.updated_at.toISOString(),
      });
    });

    it('filters by rulesetKey', async () => {
      expect((await list('?rulesetKey=premium')).json().data.map((tier: { key: string }) => tier.key)).toEqual([
        'aplus',
        'elite',
      ]);
      expect((await list('?rulesetKey=nope')).json()).toEqual({ data: [] });
    });

    it('needs plans.read (401 without a token, 403 naming it otherwise)', async () => {
      const anonymous = await list('', null);
      expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
        status: 401,
        body: { error: 'missing_token' },
      });
      const writerOnly = await list('', planner);
      expect({ status: writerOnly.statusCode, body: writerOnly.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { perm: 'plans.read' } },
      });
    });
  });
});
