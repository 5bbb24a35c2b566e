import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { draftCampaign, publishedTemplate } from '../../../helpers/campaigns.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';

/**
 * `POST /v1/admin/email/campaigns/{id}/launch` with an `Idempotency-Key`: a repeat answers the
 * launched campaign and queues nothing more, the key sent for another campaign is 409, keys
 * belong to one staff member, and repeats racing each other (50 at once; real concurrency on
 * PostgreSQL, where the campaign's row lock and the key's unique index decide) launch once.
 */

let t: TestApp;
let staff: TestUser;
let otherStaff: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['email.read', 'email.write', 'email.send']);
  otherStaff = await createUser(t.db, ['email.read', 'email.write', 'email.send']);
  await publishedTemplate(t.db, 'idem-news', { subject: 'Hi', html: '<p>{{offer}}</p>', text: '{{offer}}' });
});
afterAll(async () => {
  await t.close();
});

/** A draft campaign to `members` fresh addresses. */
const campaign = (members = 3) =>
  draftCampaign(t, staff, {
    templateKey: 'idem-news',
    members: Array.from({ length: members }, (_, i) => `m${i}-${randomUUID().slice(0, 8)}@example.test`),
    name: 'Season 2',
    vars: { offer: 'Season 2' },
  });

const launch = (id: string, key: string, user = staff) =>
  t.request({
    method: 'POST',
    url: `/v1/admin/email/campaigns/${id}/launch`,
    token: user.token,
    headers: { 'idempotency-key': key },
  });

/** What launching a campaign writes: its queued messages, launch audit rows, launch events, and its status. */
async function launchTrace(id: string) {
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number }> }) =>
    Number((await query.executeTakeFirstOrThrow()).n);
  const n = sql<number>`count(*)::int`.as('n');
  return {
    messages: await count(t.db.selectFrom('email_messages').select(n).where('campaign_id', '=', id)),
    audit: await count(
      t.db.selectFrom('audit_log').select(n).where('action', '=', 'email.campaign.launch').where('target_id', '=', id),
    ),
    events: await count(
      t.db
        .selectFrom('event_outbox')
        .select(n)
        .where('name', '=', 'email.campaign_launched')
        .where(sql<string>`payload->>'campaign_id'`, '=', id),
    ),
    status: (await t.db.selectFrom('email_campaigns').select('status').where('id', '=', id).executeTakeFirstOrThrow())
      .status,
  };
}

describe('POST /v1/admin/email/campaigns/{id}/launch with an Idempotency-Key', () => {
  it('a repeat answers the launched campaign (idempotent-replayed) and queues, audits and announces nothing more', async () => {
    const id = await campaign();
    const key = randomUUID();
    const first = await launch(id, key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.json()).toMatchObject({ id, status: 'sending', recipients: 3, counts: { queued: 3 } });
    expect(await launchTrace(id)).toEqual({ messages: 3, audit: 1, events: 1, status: 'sending' });
    expect((await auditOf(t.db, requestIdOf(first)))[0]!.summary).toMatchObject({
      idempotency_key: key,
      recipients: 3,
    });

    const repeat = await launch(id, key);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.json()).toEqual(first.json());
    expect(await launchTrace(id)).toEqual({ messages: 3, audit: 1, events: 1, status: 'sending' });
    expect(await auditOf(t.db, requestIdOf(repeat))).toEqual([]);
    expect(
      await t.db
        .selectFrom('email_campaigns')
        .select(['launched_by', 'launch_request_key'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ launched_by: staff.id, launch_request_key: key });
    // The key and its hash are not part of the campaign's view.
    expect(Object.keys(repeat.json())).not.toEqual(expect.arrayContaining(['launch_request_key']));
    expect(repeat.body).not.toContain(key);

    // Without the key, launching it again is refused as before.
    const bare = await t.request({ method: 'POST', url: `/v1/admin/email/campaigns/${id}/launch`, token: staff.token });
    expect(bare.statusCode).toBe(422);
  });

  it('409 conflict for the key sent to launch another campaign; that one stays a draft with nothing queued', async () => {
    const launched = await campaign();
    const other = await campaign();
    const key = randomUUID();
    expect((await launch(launched, key)).statusCode).toBe(200);
    const refused = await launch(other, key);
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 409,
      body: { error: 'conflict', details: { reason: 'this idempotency key was already used for a different request' } },
    });
    expect(await launchTrace(other)).toEqual({ messages: 0, audit: 0, events: 0, status: 'draft' });
    expect(await auditOf(t.db, requestIdOf(refused))).toEqual([]);
    expect(await launchTrace(launched)).toEqual({ messages: 3, audit: 1, events: 1, status: 'sending' });
  });

  it("a key is one staff member's: another using the same key launches for themselves", async () => {
    const mine = await campaign();
    const theirs = await campaign();
    const key = randomUUID();
    expect((await launch(mine, key)).statusCode).toBe(200);
    const response = await launch(theirs, key, otherStaff);
    expect(response.statusCode).toBe(200);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
    expect(await launchTrace(theirs)).toEqual({ messages: 3, audit: 1, events: 1, status: 'sending' });
  });

  it('50 repeats at once launch once: one snapshot, one audit row, one event; all answer alike', async () => {
    const id = await campaign(5);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => launch(id, key)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(await launchTrace(id)).toEqual({ messages: 5, audit: 1, events: 1, status: 'sending' });
  });

  it('one key sent at once to launch ten campaigns: exactly one launches, the rest are 409 and stay drafts', async () => {
    // Different campaigns take different row locks: only the key's unique index decides between them.
    const ids = await Promise.all(Array.from({ length: 10 }, () => campaign(2)));
    const key = randomUUID();
    const answers = await Promise.all(ids.map((id) => launch(id, key)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, ...Array(9).fill(409)]);
    const winner = ids[answers.findIndex((answer) => answer.statusCode === 200)]!;
    for (const id of ids) {
      expect(await launchTrace(id)).toEqual(
        id === winner
          ? { messages: 2, audit: 1, events: 1, status: 'sending' }
          : { messages: 0, audit: 0, events: 0, status: 'draft' },
      );
    }
  });

  it('400 SchemaError for an empty or over-long key; nothing launched', async () => {
    const id = await campaign();
    for (const key of ['', 'k'.repeat(201)]) {
      const response = await launch(id, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ path: ['idempotency-key'] })] },
      });
    }
    expect(await launchTrace(id)).toEqual({ messages: 0, audit: 0, events: 0, status: 'draft' });
  });
});
