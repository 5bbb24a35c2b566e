import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { schemaError } from '../../helpers/expectations.js';

/**
 * `GET /v1/admin/users`: the broadcast segment's filters, each alone and combined, sorting and
 * paging. The people are seeded straight into the tables with known attributes.
 */

let t: TestApp;
let reader: TestUser;

interface Seed {
  email: string;
  display_name?: string;
  status?: 'active' | 'banned' | 'deleted';
  tier?: string;
  provider?: string;
  created_at: string;
  last_seen_at?: string | null;
  role?: { key: string; expires_at?: string };
  subscription?: string;
}

const DOMAIN = `seg-${randomUUID().slice(0, 6)}.test`;
const ids: Record<string, string> = {};

async function seed(name: string, s: Seed): Promise<void> {
  const id = randomUUID();
  ids[name] = id;
  await t.db
    .insertInto('users')
    .values({
      id,
      email: s.email,
      display_name: s.display_name ?? null,
      status: s.status ?? 'active',
      tier: s.tier ?? null,
      provider: s.provider ?? 'email',
      created_at: s.created_at,
      last_seen_at: s.last_seen_at ?? null,
    })
    .execute();
  if (s.role) {
    const role = await t.db.selectFrom('roles').select('id').where('key', '=', s.role.key).executeTakeFirstOrThrow();
    await t.db
      .insertInto('user_roles')
      .values({ user_id: id, role_id: role.id, granted_by: null, reason: null, expires_at: s.role.expires_at ?? null })
      .execute();
  }
  if (s.subscription) {
    await t.db
      .insertInto('billing_subscriptions')
      .values({
        user_id: id,
        provider: 'local',
        provider_subscription_id: `sub_${id}`,
        status: s.subscription as 'active',
      })
      .execute();
  }
}

/** The seeded names a filtered list returns (others' users ignored), in the order listed. */
async function namesFor(query: string): Promise<string[]> {
  const response = await t.request({
    method: 'GET',
    url: `/v1/admin/users?per_page=100&${query}`,
    token: reader.token,
  });
  expect(response.statusCode, response.body).toBe(200);
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return (response.json().data as Array<{ id: string }>)
    .map((u) => byId.get(u.id))
    .filter((n): n is string => n !== undefined);
}

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUser(t.db, ['users.read']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'seg-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values([
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
  await t.db
    .insertInto('roles')
    .values([
      { key: 'moderator', name: 'Moderator' },
      { key: 'tester', name: 'Tester' },
    ])
    .execute();
  await seed('ann', {
    email: `ann@${DOMAIN}`,
    display_name: 'Ann Archer',
    tier: 'gold',
    provider: 'google',
    created_at: '2026-01-10T00:00:00Z',
    last_seen_at: '2026-11-01T00:00:00Z',
    role: { key: 'moderator' },
    subscription: 'active',
  });
  await seed('bob', {
    email: `bob@${DOMAIN}`,
    display_name: 'Bob Baker',
    tier: 'silver',
    created_at: '2026-02-10T00:00:00Z',
    last_seen_at: '2026-10-01T00:00:00Z',
    subscription: 'canceled',
  });
  await seed('cat', {
    email: `cat@${DOMAIN}`,
    display_name: 'Cat 100%_off',
    status: 'banned',
    created_at: '2026-03-10T00:00:00Z',
    role: { key: 'moderator', expires_at: '2020-01-01T00:00:00Z' },
  });
  await seed('dan', {
    email: `dan@${DOMAIN}`,
    status: 'deleted',
    tier: 'gold',
    provider: 'google',
    created_at: '2026-04-10T00:00:00Z',
    last_seen_at: '2026-11-20T00:00:00Z',
    subscription: 'past_due',
    role: { key: 'tester' },
  });
  await seed('eve', {
    email: `EVE@${DOMAIN}`,
    display_name: 'Eve Ember',
    created_at: '2026-05-10T00:00:00Z',
    last_seen_at: '2026-09-01T00:00:00Z',
    subscription: 'trialing',
  });
});

afterAll(async () => {
  await t.close();
});

describe('GET /v1/admin/users', () => {
  it('lists every status by default, newest first, with paging meta and the user summary', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/v1/admin/users?q=${DOMAIN}&per_page=2&page=2`,
      token: reader.token,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 2, per_page: 2, total: 5 });
    expect(body.data.map((u: { id: string }) => u.id)).toEqual([ids.cat, ids.bob]);
    expect(await namesFor(`q=${DOMAIN}`)).toEqual(['eve', 'dan', 'cat', 'bob', 'ann']);
    const ann = (await t.request({ method: 'GET', url: `/v1/admin/users?q=ann@${DOMAIN}`, token: reader.token })).json()
      .data[0];
    expect(ann).toEqual({
      id: ids.ann,
      email: `ann@${DOMAIN}`,
      display_name: 'Ann Archer',
      provider: 'google',
      status: 'active',
      tier: 'gold',
      roles: ['moderator'],
      created_at: '2026-01-10T00:00:00.000Z',
      updated_at: expect.any(String),
      last_seen_at: '2026-11-01T00:00:00.000Z',
      deleted_at: null,
    });
  });

  it('filters by each segment field alone', async () => {
    expect(await namesFor('q=bob%20bak')).toEqual(['bob']); // display name, case-insensitive
    expect(await namesFor(`q=eve@${DOMAIN}`)).toEqual(['eve']); // email, case-insensitive
    expect(await namesFor(`q=${ids.cat}`)).toEqual(['cat']); // exact id
    expect(await namesFor('q=100%25_off')).toEqual(['cat']); // % and _ match literally
    expect(await namesFor('q=0%25_o')).toEqual(['cat']);
    expect(await namesFor('status=banned')).toEqual(['cat']);
    expect(await namesFor('status=deleted')).toEqual(['dan']);
    expect(await namesFor('tier=gold')).toEqual(['dan', 'ann']);
    expect(await namesFor('role=moderator')).toEqual(['ann']); // cat's grant has expired
    expect(await namesFor('provider=google')).toEqual(['dan', 'ann']);
    expect(await namesFor('has_subscription=true')).toEqual(['eve', 'dan', 'ann']); // canceled does not count
    expect((await namesFor('has_subscription=false')).sort()).toEqual(['bob', 'cat']);
    expect(await namesFor('created_from=2026-04-10T00:00:00Z')).toEqual(['eve', 'dan']); // inclusive
    expect(await namesFor('created_to=2026-02-10T00:00:00Z')).toEqual(['bob', 'ann']);
    expect(await namesFor('last_seen_from=2026-10-15T00:00:00%2B02:00')).toEqual(['dan', 'ann']);
    expect(await namesFor('last_seen_to=2026-10-01T00:00:00Z')).toEqual(['eve', 'bob']);
  });

  it('combines filters (all must hold)', async () => {
    expect(await namesFor('tier=gold&status=active')).toEqual(['ann']);
    expect(await namesFor('provider=google&has_subscription=true&role=tester')).toEqual(['dan']);
    expect(
      await namesFor(
        `q=${DOMAIN}&created_from=2026-02-01T00:00:00Z&created_to=2026-05-01T00:00:00Z&has_subscription=false`,
      ),
    ).toEqual(['cat', 'bob']);
    expect(await namesFor('tier=silver&status=banned')).toEqual([]);
  });

  it('sorts by email (case-insensitive), last_seen_at (never seen last) and created_at', async () => {
    expect(await namesFor(`q=${DOMAIN}&sort=email:asc`)).toEqual(['ann', 'bob', 'cat', 'dan', 'eve']);
    expect(await namesFor(`q=${DOMAIN}&sort=last_seen_at:desc`)).toEqual(['dan', 'ann', 'bob', 'eve', 'cat']);
    expect(await namesFor(`q=${DOMAIN}&sort=last_seen_at:asc`)).toEqual(['eve', 'bob', 'ann', 'dan', 'cat']);
    expect(await namesFor(`q=${DOMAIN}&sort=created_at:asc`)).toEqual(['ann', 'bob', 'cat', 'dan', 'eve']);
  });

  it('refuses malformed filters with a SchemaError and bad sort fields', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['status=gone', { path: ['status'] }],
      ['has_subscription=yes', { path: ['has_subscription'] }],
      ['created_from=yesterday', { path: ['created_from'] }],
      [`tier=${'x'.repeat(33)}`, { path: ['tier'], code: 'too_big' }],
      [`role=${'x'.repeat(49)}`, { path: ['role'], code: 'too_big' }],
      [`provider=${'x'.repeat(33)}`, { path: ['provider'], code: 'too_big' }],
      [`q=${'x'.repeat(201)}`, { path: ['q'], code: 'too_big' }],
      ['sort=password:asc', { path: ['sort'] }],
      ['per_page=101', { path: ['per_page'] }],
    ];
    for (const [query, issue] of cases) {
      const response = await t.request({ method: 'GET', url: `/v1/admin/users?${query}`, token: reader.token });
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual(schemaError(issue));
    }
  });

  it('needs users.read', async () => {
    const outsider = await createUser(t.db, ['roles.read']);
    const response = await t.request({ method: 'GET', url: '/v1/admin/users', token: outsider.token });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'forbidden', details: { perm: 'users.read' } });
    expect((await t.request({ method: 'GET', url: '/v1/admin/users' })).json()).toEqual({ error: 'missing_token' });
  });
});
