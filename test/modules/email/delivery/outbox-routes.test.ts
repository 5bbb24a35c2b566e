import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mailDispatcherFor } from '../../../../src/modules/email/delivery/dispatcher.js';
import { verifyUnsubscribeToken } from '../../../../src/modules/email/unsubscribe-token.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import {
  createCampaign,
  createTemplate,
  emptyQueue,
  literal,
  messageRow,
  queue,
  templated,
  unsubscribeTokenOf,
  type TemplateVersionFixture,
} from './fixtures.js';

/**
 * The staff outbox: the list (filters, paging, no bodies), one message as it was or will be
 * sent (rendered on read, headers included), and sending a failed message again.
 */

let t: TestApp;
let reader: TestUser;
let sender: TestUser;
let player: TestUser;
let template: TemplateVersionFixture;

beforeAll(async () => {
  t = await startTestApp({ config: { mailUnsubscribeMailto: 'unsubscribe@platform.test' } });
  reader = await createUser(t.db, ['email.read']);
  sender = await createUser(t.db, ['email.send']);
  player = await createUser(t.db);
  template = await createTemplate(t.db, {
    subject: 'News for {{ name | "you" }}',
    html: '<h1>{{ name }}</h1><p>{{ body }}</p>',
    text: '{{ name }}: {{ body }}',
  });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await emptyQueue(t.db);
});

const get = (url: string, user: TestUser | null = reader) => t.request({ method: 'GET', url, token: user?.token });
const retry = (id: string, user: TestUser | null = sender) =>
  t.request({ method: 'POST', url: `/v1/admin/email/outbox/${id}/retry`, token: user?.token });
const idsOf = (response: LightMyRequestResponse) =>
  (response.json().data as Array<{ id: string }>).map((row) => row.id);

async function setRow(id: string, values: Record<string, unknown>) {
  await t.db.updateTable('email_messages').set(values).where('id', '=', id).execute();
}

describe('GET /v1/admin/email/outbox', () => {
  it('401 without a token, 403 without email.read (details.perm), 400 on malformed filters', async () => {
    expect({
      status: (await get('/v1/admin/email/outbox', null)).statusCode,
      body: (await get('/v1/admin/email/outbox', null)).json(),
    }).toEqual({ status: 401, body: { error: 'missing_token' } });
    for (const user of [player, sender]) {
      const response = await get('/v1/admin/email/outbox', user);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { perm: 'email.read' } },
      });
    }
    for (const [query, path] of [
      ['status=bounced', 'status'],
      ['category=promo', 'category'],
      ['campaign_id=nope', 'campaign_id'],
      ['user_id=1', 'user_id'],
      ['created_from=yesterday', 'created_from'],
      ['sort=sent_at:desc', 'sort'],
      ['per_page=101', 'per_page'],
    ] as const) {
      const response = await get(`/v1/admin/email/outbox?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual(schemaError({ path: [path] }));
    }
  });

  it('200: newest first with meta.total, rendered subjects, no bodies', async () => {
    const [first] = await queue(t.db, [literal('first@example.test')]);
    const [second] = await queue(t.db, [
      templated(template, 'second@example.test', { name: 'Sam', body: 'secret body' }),
    ]);
    await setRow(first!, { created_at: new Date(Date.now() - 60_000) });
    const response = await get('/v1/admin/email/outbox');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25, total: 2 });
    expect(idsOf(response)).toEqual([second, first]);
    expect(body.data[0]).toStrictEqual({
      id: second,
      to_email: 'second@example.test',
      user_id: null,
      category: 'marketing',
      template_id: template.id,
      template_key: template.key,
      template_version: 1,
      subject: 'News for Sam',
      campaign_id: null,
      broadcast_id: null,
      status: 'queued',
      held: false,
      attempts: 0,
      next_attempt_at: expect.any(String),
      last_error: null,
      transport: null,
      transport_message_id: null,
      created_at: expect.any(String),
      sent_at: null,
    });
    expect(body.data[1]).toMatchObject({
      id: first,
      subject: 'Receipt for first@example.test',
      template_id: null,
      template_key: null,
      category: 'transactional',
    });
    expect(response.body).not.toContain('secret body');
    expect(idsOf(await get('/v1/admin/email/outbox?sort=created_at:asc'))).toEqual([first, second]);
    const paged = await get('/v1/admin/email/outbox?per_page=1&page=2');
    expect({ ids: idsOf(paged), meta: paged.json().meta }).toEqual({
      ids: [first],
      meta: { page: 2, per_page: 1, total: 2 },
    });
  });

  it('filters by status, category, campaign, broadcast, user, address (literal %) and creation time; all combine', async () => {
    const campaign = await createCampaign(t.db, template);
    const broadcast = crypto.randomUUID();
    const [a, b, c, d, e] = await queue(t.db, [
      templated(template, 'camp@example.test', {}, { campaign_id: campaign }),
      literal('cast@example.test', { broadcast_id: broadcast, category: 'marketing' }),
      literal(reader.email, { user_id: reader.id }),
      literal('50%off@example.test'),
      literal('50Xoff@example.test'),
    ]);
    await setRow(a!, { status: 'sent', sent_at: new Date(), transport: 'outbox', transport_message_id: 'outbox-1' });
    await setRow(b!, { status: 'failed', last_error: '550 no' });
    const old = new Date(Date.now() - 3_600_000);
    await setRow(e!, { created_at: old });
    const ids = async (query: string) =>
      (await get(`/v1/admin/email/outbox?${query}`))
        .json()
        .data.map((row: { id: string }) => row.id)
        .sort();
    const sorted = (...list: (string | undefined)[]) => [...list].sort();
    expect(await ids('status=sent')).toEqual([a]);
    expect(await ids('status=failed')).toEqual([b]);
    expect(await ids('category=marketing')).toEqual(sorted(a, b));
    expect(await ids(`campaign_id=${campaign}`)).toEqual([a]);
    expect(await ids(`broadcast_id=${broadcast}`)).toEqual([b]);
    expect(await ids(`user_id=${reader.id}`)).toEqual([c]);
    expect(await ids('q=50%25off')).toEqual([d]);
    expect(await ids('q=CAMP@')).toEqual([a]);
    expect(await ids(`created_to=${encodeURIComponent(new Date(old.getTime() + 1).toISOString())}`)).toEqual([e]);
    expect(await ids(`created_from=${encodeURIComponent(new Date(old.getTime() + 1).toISOString())}`)).toEqual(
      sorted(a, b, c, d),
    );
    expect(await ids('category=marketing&status=sent&q=camp')).toEqual([a]);
    expect(await ids('category=transactional&status=sent')).toEqual([]);
    expect((await get('/v1/admin/email/outbox?category=marketing')).json().meta.total).toBe(2);
  });
});

describe('GET /v1/admin/email/outbox/{id}', () => {
  it('401, 403 without email.read, 400 for a non-uuid, 404 not_found for an unknown id', async () => {
    const [id] = await queue(t.db, [literal('x@example.test')]);
    const cases: Array<[TestUser | null, string, number, unknown]> = [
      [null, id!, 401, { error: 'missing_token' }],
      [player, id!, 403, { error: 'forbidden', details: { perm: 'email.read' } }],
      [reader, crypto.randomUUID(), 404, { error: 'not_found' }],
    ];
    for (const [user, target, status, body] of cases) {
      const response = await get(`/v1/admin/email/outbox/${target}`, user);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
    }
    const bad = await get('/v1/admin/email/outbox/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(schemaError({ path: ['id'] }));
  });

  it('200: a templated marketing message rendered on read, with Message-ID and both unsubscribe headers', async () => {
    const [id] = await queue(t.db, [
      templated(template, 'Reader@Example.test', { name: 'Kim <K>', body: 'Season 2 & more' }),
    ]);
    const response = await get(`/v1/admin/email/outbox/${id}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    const listUnsubscribe: string = body.headers['List-Unsubscribe'];
    // Where the link goes, its token withheld: a signed link in an answer would unsubscribe the reader.
    expect(listUnsubscribe).toBe(
      '<http://platform.test/v1/public/email/unsubscribe?token=withheld>, <mailto:unsubscribe@platform.test?subject=unsubscribe>',
    );
    expect(verifyUnsubscribeToken(t.kernel.signingKey, unsubscribeTokenOf(listUnsubscribe))).toBeUndefined();
    expect(body).toMatchObject({
      id,
      to_email: 'Reader@Example.test',
      category: 'marketing',
      template_key: template.key,
      status: 'queued',
      vars: { name: 'Kim <K>', body: 'Season 2 & more' },
      from: 'Platform <no-reply@platform.test>',
      message_id: `<${id}@platform.test>`,
      subject: 'News for Kim <K>',
      html: '<h1>Kim &lt;K&gt;</h1><p>Season 2 &amp; more</p>',
      text: 'Kim <K>: Season 2 & more',
      headers: {
        From: 'Platform <no-reply@platform.test>',
        To: 'Reader@Example.test',
        Subject: 'News for Kim <K>',
        'Message-ID': `<${id}@platform.test>`,
        'List-Unsubscribe': listUnsubscribe,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
  });

  it('200: a literal transactional message as stored, without unsubscribe headers; sent ones show their transport', async () => {
    const [id] = await queue(t.db, [
      literal('buyer@example.test', { subject: 'Your receipt', html: '<p>Paid</p>', text: 'Paid' }),
    ]);
    await mailDispatcherFor(t.kernel).runOnce();
    const body = (await get(`/v1/admin/email/outbox/${id}`)).json();
    expect(body).toMatchObject({
      subject: 'Your receipt',
      html: '<p>Paid</p>',
      text: 'Paid',
      vars: {},
      status: 'sent',
      transport: 'outbox',
      attempts: 1,
    });
    expect(body.transport_message_id).toMatch(/^outbox-/);
    expect(body.headers).toStrictEqual({
      From: 'Platform <no-reply@platform.test>',
      To: 'buyer@example.test',
      Subject: 'Your receipt',
      'Message-ID': `<${id}@platform.test>`,
    });
  });
});

describe('POST /v1/admin/email/outbox/{id}/retry', () => {
  async function failedMessage() {
    const [id] = await queue(t.db, [literal('retry@example.test')]);
    await setRow(id!, {
      status: 'failed',
      attempts: 5,
      last_error: '451 try later',
      next_attempt_at: new Date(Date.now() - 86_400_000),
    });
    return id!;
  }

  it('401, 403 without email.send (a reader), 400 for a non-uuid, 404 not_found: nothing changes, nothing audited', async () => {
    const id = await failedMessage();
    const before = await messageRow(t.db, id);
    const cases: Array<[TestUser | null, string, number, unknown]> = [
      [null, id, 401, { error: 'missing_token' }],
      [reader, id, 403, { error: 'forbidden', details: { perm: 'email.send' } }],
      [sender, crypto.randomUUID(), 404, { error: 'not_found' }],
    ];
    for (const [user, target, status, body] of cases) {
      const response = await retry(target, user);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    const bad = await retry('nope');
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({ status: 400, body: schemaError({ path: ['id'] }) });
    expect(await messageRow(t.db, id)).toEqual(before);
  });

  it('422 invalid_state (details.status) for every status but failed, changing nothing', async () => {
    for (const status of ['queued', 'sending', 'sent', 'skipped', 'cancelled'] as const) {
      const [id] = await queue(t.db, [literal(`${status}@example.test`)]);
      await setRow(id!, {
        status,
        ...(status === 'sending' ? { lease_until: new Date(Date.now() + 60_000), attempts: 1 } : {}),
      });
      const before = await messageRow(t.db, id!);
      const response = await retry(id!);
      expect({ status: response.statusCode, body: response.json() }, status).toEqual({
        status: 422,
        body: { error: 'invalid_state', details: { reason: 'only a failed message can be retried', status } },
      });
      expect(await messageRow(t.db, id!)).toEqual(before);
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
  });

  it('200: a failed message is queued again, due now, attempts counted afresh, error cleared, audited; the next round sends it', async () => {
    const id = await failedMessage();
    const startedAt = Date.now();
    const response = await retry(id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      status: 'queued',
      attempts: 0,
      last_error: null,
      to_email: 'retry@example.test',
    });
    const row = await messageRow(t.db, id);
    expect(row).toMatchObject({ status: 'queued', attempts: 0, last_error: null, lease_until: null });
    expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(row.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: sender.id,
      action: 'email.message.retry',
      target_type: 'email_message',
      target_id: id,
    });
    expect(audit[0]!.summary).toEqual({
      before: { status: 'failed', attempts: 5, last_error: '451 try later' },
      after: { status: 'queued', attempts: 0 },
      to_email: 'retry@example.test',
      campaign_id: null,
      broadcast_id: null,
    });
    expect(await mailDispatcherFor(t.kernel).runOnce()).toMatchObject({ claimed: 1, sent: 1 });
    expect(await messageRow(t.db, id)).toMatchObject({ status: 'sent', attempts: 1 });
    // Sent now: a second retry is refused.
    expect((await retry(id)).statusCode).toBe(422);
  });
});
