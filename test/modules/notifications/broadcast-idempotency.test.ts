import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * Operation 19 with an `Idempotency-Key`: a repeat answers the first broadcast and sends
 * nothing, another body under the same key is 409, keys belong to one staff member, and repeats
 * racing each other (50 at once; real concurrency on PostgreSQL) send once.
 */

const url = '/v1/admin/notifications/broadcast';
let t: TestApp;
let staff: TestUser;
let otherStaff: TestUser;
const marker = `idem-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['announcements.write']);
  otherStaff = await createUser(t.db, ['announcements.write']);
  for (let i = 0; i < 3; i++) await createUser(t.db, [], { email: `${marker}-${i}@example.test` });
});
afterAll(async () => {
  await t.close();
});

const body = (title: string) => ({ segment: { q: marker }, notification: { title } });
const send = (payload: unknown, key: string, user = staff) =>
  t.request({
    method: 'POST',
    url,
    token: user.token,
    payload: payload as object,
    headers: { 'idempotency-key': key },
  });

async function stored() {
  const count = async (table: 'notification_broadcasts' | 'notifications' | 'notification_recipients' | 'audit_log') =>
    Number((await t.db.selectFrom(table).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n);
  return {
    broadcasts: await count('notification_broadcasts'),
    notifications: await count('notifications'),
    recipients: await count('notification_recipients'),
    audit: await count('audit_log'),
  };
}

describe('POST /v1/admin/notifications/broadcast with an Idempotency-Key', () => {
  it('a repeat answers the first broadcast (idempotent-replayed) and stores nothing more', async () => {
    const key = randomUUID();
    const first = await send(body('Maintenance tonight'), key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ recipients: 3, notification: { created: 3 }, email: null });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await stored();

    // Keys in another order mean the same request.
    const repeat = await send({ notification: { title: 'Maintenance tonight' }, segment: { q: marker } }, key);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toEqual(first.json());
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(await stored()).toEqual(before);
    expect(
      await t.db
        .selectFrom('notification_broadcasts')
        .select(['idempotency_key', 'created_by'])
        .where('idempotency_key', '=', key)
        .execute(),
    ).toEqual([{ idempotency_key: key, created_by: staff.id }]);
  });

  it('409 conflict for another body under the same key; nothing stored', async () => {
    const key = randomUUID();
    expect((await send(body('First'), key)).statusCode).toBe(200);
    const before = await stored();
    const other = await send(body('Second'), key);
    expect({ status: other.statusCode, body: other.json() }).toEqual({
      status: 409,
      body: { error: 'conflict', details: { reason: 'this idempotency key was already used for a different request' } },
    });
    expect(await stored()).toEqual(before);
  });

  it("a key is one staff member's: another using the same key broadcasts for themselves", async () => {
    const key = randomUUID();
    expect((await send(body('Mine'), key)).statusCode).toBe(200);
    const theirs = await send(body('Mine'), key, otherStaff);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(
      await t.db
        .selectFrom('notification_broadcasts')
        .select('created_by')
        .where('idempotency_key', '=', key)
        .orderBy('created_at')
        .execute(),
    ).toEqual([{ created_by: staff.id }, { created_by: otherStaff.id }]);
  });

  it('50 repeats at once send once and all answer alike', async () => {
    const key = randomUUID();
    const before = await stored();
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(body('Only once'), key)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((answer) => answer.body))).toEqual(
      new Set([JSON.stringify({ recipients: 3, notification: { created: 3 }, email: null })]),
    );
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await stored()).toEqual({
      broadcasts: before.broadcasts + 1,
      notifications: before.notifications + 1,
      recipients: before.recipients + 3,
      audit: before.audit + 1,
    });
  });

  it('400 SchemaError for an empty or over-long key; nothing stored', async () => {
    const before = await stored();
    for (const key of ['', 'k'.repeat(201)]) {
      const response = await send(body('Bad key'), key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    }
    expect(await stored()).toEqual(before);
  });
});
