import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { RELIABILITY_FULL } from './fixtures.js';

/**
 * Bulk operations racing each other, from two instances sharing the database (on PostgreSQL the
 * requests really run at once; on the embedded database they queue and the same end states must
 * hold): operation 14 (bulk role grant/revoke) over overlapping users, operation 9 (audience member
 * replace) with different lists, operation 19 (broadcast) while its segment's role is granted and
 * revoked. Each request must answer as documented (no 500 from a deadlock), and the end state must
 * be one the requests could have produced one after the other: no duplicate grants, an audience
 * equal to one of the lists, each broadcast's recipients notified and mailed once, alike.
 */

const USERS = RELIABILITY_FULL ? 200 : 40;
const BULK_REQUESTS = RELIABILITY_FULL ? 16 : 6;
const LISTS = RELIABILITY_FULL ? 12 : 5;
const BROADCASTS = RELIABILITY_FULL ? 8 : 3;

const apps: TestApp[] = [];
let staff: TestUser;
let next = 0;
const app = () => apps[next++ % apps.length]!;

beforeAll(async () => {
  const first = await startTestApp();
  apps.push(first, await startTestApp({ database: await first.testDatabase!.openAnother({ pooled: true }) }));
  staff = await createUser(first.db, [
    'roles.read',
    'roles.write',
    'roles.assign',
    'users.read',
    'email.read',
    'email.write',
    'email.send',
    'announcements.write',
  ]);
  const template = await first.db
    .insertInto('email_templates')
    .values({
      key: 'bulk-news',
      name: 'News',
      description: null,
      category: 'transactional',
      created_by: null,
      updated_by: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await first.db
    .insertInto('email_template_versions')
    .values({
      template_id: template.id,
      version: 1,
      subject: 'News',
      html: '<p>News</p>',
      text: 'News',
      note: null,
      created_by: null,
    })
    .execute();
  await first.db
    .updateTable('email_templates')
    .set({ published_version: 1, published_at: new Date() })
    .where('id', '=', template.id)
    .execute();
}, 60_000);
afterAll(async () => {
  for (const instance of [...apps].reverse()) await instance.close();
});

const db = () => apps[0]!.db;

async function makeRole(key: string): Promise<string> {
  const response = await apps[0]!.request({
    method: 'POST',
    url: '/v1/admin/roles',
    token: staff.token,
    payload: { key, name: key, permissions: ['users.read'] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

async function makeUsers(count: number, marker: string): Promise<TestUser[]> {
  const made: TestUser[] = [];
  for (let i = 0; i < count; i++) made.push(await createUser(db(), [], { email: `${marker}-${i}@example.test` }));
  return made;
}

const bulk = (userIds: string[], roleKey: string, action: 'grant' | 'revoke') =>
  app().request({
    method: 'POST',
    url: '/v1/admin/users/bulk/roles',
    token: staff.token,
    payload: { user_ids: userIds, role_key: roleKey, action },
  });

const holders = async (roleId: string) =>
  (await db().selectFrom('user_roles').select('user_id').where('role_id', '=', roleId).execute())
    .map((row) => row.user_id)
    .sort();

function rotated<T>(items: T[], by: number): T[] {
  return [...items.slice(by % items.length), ...items.slice(0, by % items.length)];
}

describe('operation 14: bulk role grants and revokes over overlapping users at once', () => {
  it(`${BULK_REQUESTS} grants of one role to ${USERS} users, each listing them in another order: all 200, each user holds it once`, async () => {
    const users = await makeUsers(USERS, 'bulk-grant');
    const roleId = await makeRole('bulk-race-a');
    const ids = users.map((u) => u.id);
    const responses = await Promise.all(
      Array.from({ length: BULK_REQUESTS }, (_, i) =>
        bulk(i % 2 === 0 ? rotated(ids, i * 7) : rotated(ids, i * 7).reverse(), 'bulk-race-a', 'grant'),
      ),
    );
    expect(responses.map((r) => `${r.statusCode} ${r.statusCode === 200 ? '' : r.body}`)).toEqual(
      responses.map(() => '200 '),
    );
    expect(responses.every((r) => r.json().results.every((result: { ok: boolean }) => result.ok))).toBe(true);
    const rows = await db()
      .selectFrom('user_roles')
      .select(['user_id', sql<number>`count(*)::int`.as('n')])
      .where('role_id', '=', roleId)
      .groupBy('user_id')
      .execute();
    expect(rows).toHaveLength(USERS);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });

  it('grants and revokes of overlapping halves at once: all 200; every user ends as the last request that named them left them, the same for a whole request, and each change is audited', async () => {
    const users = await makeUsers(USERS, 'bulk-mixed');
    const roleId = await makeRole('bulk-race-b');
    const ids = users.map((u) => u.id);
    // Everyone holds it at first; then overlapping thirds are revoked and granted, in shuffled orders, at once.
    expect((await bulk(ids, 'bulk-race-b', 'grant')).statusCode).toBe(200);
    const third = Math.floor(USERS / 3);
    const requests = Array.from({ length: BULK_REQUESTS }, (_, i) => ({
      ids: (i % 2 === 0 ? rotated(ids, i * 5) : rotated(ids, i * 5).reverse()).slice(0, 2 * third),
      action: (i % 2 === 0 ? 'revoke' : 'grant') as 'grant' | 'revoke',
    }));
    const responses = await Promise.all(requests.map((r) => bulk(r.ids, 'bulk-race-b', r.action)));
    expect(responses.map((r) => `${r.statusCode} ${r.statusCode === 200 ? '' : r.body}`)).toEqual(
      responses.map(() => '200 '),
    );

    // No duplicates; and what each user holds is what one of the requests naming them wanted.
    const held = new Set(await holders(roleId));
    const rows = await db()
      .selectFrom('user_roles')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('role_id', '=', roleId)
      .executeTakeFirstOrThrow();
    expect(rows.n).toBe(held.size);
    // Audit rows: a grant is recorded for each user it names, a revoke only where it took a grant away.
    // Replaying the audited changes in order must give the end state (nothing changed unrecorded).
    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('action', 'in', ['users.role_grant', 'users.role_revoke'])
      // Stamped by clock_timestamp() as each request writes them: the order the requests changed things in.
      .where(sql<boolean>`summary->>'role_key' = 'bulk-race-b'`)
      .orderBy('created_at')
      .execute();
    const replayed = new Set<string>();
    for (const row of audit) {
      if (row.action === 'users.role_grant') replayed.add(row.target_id!);
      else {
        expect(replayed.has(row.target_id!), `revoke of ${row.target_id} audited while not held`).toBe(true);
        replayed.delete(row.target_id!);
      }
    }
    expect([...replayed].sort()).toEqual([...held].sort());
  });
});

describe('operation 9: audience member lists replaced at once', () => {
  it(`${LISTS} different CSVs for one audience at once: each answers 200 with its count, and the audience is exactly one of them`, async () => {
    const created = await apps[0]!.request({
      method: 'POST',
      url: '/v1/admin/email/audiences',
      token: staff.token,
      payload: { name: 'Racing lists' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    // Overlapping lists of different sizes: list i has addresses i .. i + 10 * (i + 1).
    const lists = Array.from({ length: LISTS }, (_, i) =>
      Array.from({ length: 10 * (i + 1) }, (_, j) => `member-${i + j}@example.test`),
    );
    const responses = await Promise.all(
      lists.map((list) =>
        app().request({
          method: 'PUT',
          url: `/v1/admin/email/audiences/${id}/members`,
          token: staff.token,
          payload: { csv: ['email', ...list].join('\r\n') },
        }),
      ),
    );
    expect(responses.map((r) => [r.statusCode, r.json().count])).toEqual(lists.map((list) => [200, list.length]));
    const members = (
      await db().selectFrom('email_audience_members').select('email').where('audience_id', '=', id).execute()
    )
      .map((row) => row.email)
      .sort();
    expect(lists.map((list) => [...list].sort())).toContainEqual(members);
    const view = await apps[1]!.request({ method: 'GET', url: `/v1/admin/email/audiences/${id}`, token: staff.token });
    expect(view.json().member_count ?? members.length).toBe(members.length);
  });
});

describe("operation 19: broadcasts while the segment's role is granted and revoked", () => {
  it(`${BROADCASTS} broadcasts (in-app and email) to a role's holders while bulk requests change who holds it: each recipient notified and mailed once, the counts alike`, async () => {
    const users = await makeUsers(USERS, 'bulk-broadcast');
    await makeRole('bulk-race-c');
    const ids = users.map((u) => u.id);
    expect((await bulk(ids.slice(0, USERS / 2), 'bulk-race-c', 'grant')).statusCode).toBe(200);
    const changes = Array.from({ length: BULK_REQUESTS }, (_, i) =>
      bulk(rotated(ids, i * 3).slice(0, USERS / 2), 'bulk-race-c', i % 2 === 0 ? 'grant' : 'revoke'),
    );
    const broadcasts = Array.from({ length: BROADCASTS }, (_, i) =>
      app().request({
        method: 'POST',
        url: '/v1/admin/notifications/broadcast',
        token: staff.token,
        payload: {
          segment: { role: 'bulk-race-c' },
          notification: { title: `Race ${i}`, kind: 'info' },
          email: { template_key: 'bulk-news', vars: {} },
        },
      }),
    );
    const [changed, sent] = await Promise.all([Promise.all(changes), Promise.all(broadcasts)]);
    expect(changed.map((r) => r.statusCode)).toEqual(changed.map(() => 200));
    expect(sent.map((r) => `${r.statusCode} ${r.statusCode === 200 ? '' : r.body}`)).toEqual(sent.map(() => '200 '));

    for (const response of sent) {
      const answer = response.json() as {
        recipients: number;
        notification: { created: number };
        email: { queued: number };
      };
      // One moment's holders: as many notified as mailed as counted.
      expect(answer.notification.created).toBe(answer.recipients);
      expect(answer.email.queued).toBe(answer.recipients);
    }
    const rows = await db()
      .selectFrom('notification_broadcasts as b')
      .innerJoin('notifications as n', 'n.broadcast_id', 'b.id')
      .select(['b.id', 'b.recipients', 'n.id as notification_id'])
      .where(sql<boolean>`b.segment->>'role' = 'bulk-race-c'`)
      .execute();
    expect(rows).toHaveLength(BROADCASTS);
    for (const row of rows) {
      const notified = (
        await db()
          .selectFrom('notification_recipients')
          .select('user_id')
          .where('notification_id', '=', row.notification_id)
          .execute()
      )
        .map((r) => r.user_id)
        .sort();
      const mailed = (
        await db().selectFrom('email_messages').select('user_id').where('broadcast_id', '=', row.id).execute()
      )
        .map((r) => r.user_id!)
        .sort();
      expect(new Set(notified).size).toBe(notified.length);
      expect(mailed).toEqual(notified);
      expect(notified).toHaveLength(row.recipients!);
    }
  });
});
