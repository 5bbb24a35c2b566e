import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * The whole users list's total comes from migration 0039's trigger-kept count, not a scan: it
 * must equal `count(*)` after every kind of write, rolled back, concurrent or hand-run.
 */

let t: TestApp;
let reader: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUser(t.db, ['users.read']);
});

afterAll(async () => {
  await t.close();
});

async function listedTotal(token = reader.token, query = ''): Promise<number> {
  const response = await t.request({ method: 'GET', url: `/v1/admin/users?per_page=1${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().meta.total;
}

async function countedUsers(): Promise<number> {
  const row = await t.db.selectFrom('users').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return row.n;
}

const newUser = (email = `count-${randomUUID()}@example.test`) => ({
  id: randomUUID(),
  email,
  status: 'active' as const,
  provider: 'email',
});

describe('GET /v1/admin/users total without filters', () => {
  it('equals count(*) after single and multi-row inserts and a hard delete', async () => {
    expect(await listedTotal()).toBe(await countedUsers());
    await createUser(t.db);
    const batch = [newUser(), newUser(), newUser()];
    await t.db.insertInto('users').values(batch).execute();
    expect(await listedTotal()).toBe(await countedUsers());
    const before = await listedTotal();
    await t.db.deleteFrom('users').where('id', 'in', [batch[0]!.id, batch[1]!.id]).execute();
    expect(await listedTotal()).toBe(before - 2);
    expect(await listedTotal()).toBe(await countedUsers());
  });

  it('is unchanged by a rolled-back insert and by an insert that conflicts and does nothing', async () => {
    const before = await listedTotal();
    await expect(
      t.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values([newUser(), newUser()]).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const existing = newUser();
    await t.db.insertInto('users').values(existing).execute();
    await t.db
      .insertInto('users')
      .values({ ...existing })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    expect(await listedTotal()).toBe(before + 1);
    expect(await listedTotal()).toBe(await countedUsers());
  });

  it('stays exact under concurrent sign-ups', async () => {
    const before = await listedTotal();
    await Promise.all(Array.from({ length: 30 }, () => t.db.insertInto('users').values(newUser()).execute()));
    expect(await listedTotal()).toBe(before + 30);
    expect(await listedTotal()).toBe(await countedUsers());
  });

  it("rides on the page's rows without showing in them, and a page past the end still has it", async () => {
    const total = await listedTotal();
    const first = (await t.request({ method: 'GET', url: '/v1/admin/users?per_page=2', token: reader.token })).json();
    expect(first.meta).toEqual({ page: 1, per_page: 2, total });
    expect(first.data).toHaveLength(2);
    for (const row of first.data)
      expect(Object.keys(row).sort()).toEqual([
        'created_at',
        'deleted_at',
        'display_name',
        'email',
        'id',
        'last_seen_at',
        'provider',
        'roles',
        'status',
        'tier',
        'updated_at',
      ]);
    const past = (
      await t.request({ method: 'GET', url: `/v1/admin/users?per_page=2&page=${total + 1}`, token: reader.token })
    ).json();
    expect(past).toEqual({ data: [], meta: { page: total + 1, per_page: 2, total } });
  });

  it('filtered lists still count their matches', async () => {
    await t.db
      .insertInto('users')
      .values({ ...newUser(), status: 'banned' })
      .execute();
    const banned = await t.db
      .selectFrom('users')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('status', '=', 'banned')
      .executeTakeFirstOrThrow();
    expect(await listedTotal(reader.token, '&status=banned')).toBe(banned.n);
  });

  it('starts again from zero after a TRUNCATE', async () => {
    await sql`TRUNCATE users CASCADE`.execute(t.db);
    const slots = await t.db
      .selectFrom('user_count_slots')
      .select(sql<number>`coalesce(sum(users), 0)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(slots.n).toBe(0);
    const onlyUser = await createUser(t.db, ['users.read']);
    expect(await listedTotal(onlyUser.token)).toBe(1);
  });
});
