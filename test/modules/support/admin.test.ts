import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, type TestApp, type TestUser } from '../../helpers/app.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { startStorageApp } from '../../helpers/uploads.js';
import { attachmentView, uploadAttachment } from './fixtures.js';
import { auditOf, expectRefusedUnrecorded, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { storedState } from '../../helpers/stored-state.js';
import { signToken } from '../../helpers/tokens.js';

/**
 * The staff side of support: the queue with its filters, one ticket, and reply / close / reopen
 * with their stored effects (messages, status, the mailed reply with escaped html, audit rows,
 * dashboard events) and every refusal, which stores nothing.
 */

let t: TestApp;
let reader: TestUser;
let agent: TestUser;
let outsider: TestUser;

const ADMIN = '/v1/admin/support/tickets';
const list = (query = '', user = reader) => t.request({ method: 'GET', url: `${ADMIN}${query}`, token: user.token });
const post = (user: TestUser, id: string, action: 'reply' | 'close' | 'reopen', payload?: unknown) =>
  t.request({
    method: 'POST',
    url: `${ADMIN}/${id}/${action}`,
    token: user.token,
    headers: { 'user-agent': 'support-test' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const ticketRow = (id: string) =>
  t.db.selectFrom('support_tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const messageCount = async (id: string) =>
  (await t.db.selectFrom('support_messages').select('id').where('ticket_id', '=', id).execute()).length;
const mailsTo = (userId: string) =>
  t.db.selectFrom('email_messages').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();

/** A ticket opened through the player's route (so its confirmation mail exists too). */
async function openTicket(player: TestUser, body: Record<string, unknown> = {}): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/me/support',
    token: player.token,
    payload: { subject: 'Help', message: 'Please help.', category: 'technical', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

/** Everything a refused write could have touched: tickets, messages, mail, the audit log and the outbox. */
const supportState = () =>
  storedState(t.db, { support_tickets: ['id'], support_messages: ['id'] }, [
    'email_messages',
    'audit_log',
    'event_outbox',
  ]);
/** A refusal: exact status and body, nothing stored, nothing audited or emitted under its request. */
const expectRefused = (send: () => Promise<LightMyRequestResponse>, status: number, body: unknown) =>
  expectRefusedUnrecorded(t.db, supportState, send, status, body);

beforeAll(async () => {
  t = await startStorageApp();
  reader = await createUser(t.db, ['support.read']);
  agent = await createUser(t.db, ['support.read', 'support.write']);
  outsider = await createUser(t.db, ['users.read']);
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/admin/support/tickets', () => {
  it('pages with a total, most recently active first; filters status, category, user_id, q (subject or email)', async () => {
    const tag = randomUUID().slice(0, 8);
    const ann = await createUser(t.db);
    const ben = await createUser(t.db);
    const a = await openTicket(ann, { subject: `${tag} billing 100%`, category: 'billing' });
    const b = await openTicket(ann, { subject: `${tag} crash` });
    const c = await openTicket(ben, { subject: `${tag} CRASH again` });
    expect((await post(agent, a, 'reply', { message: 'Refunded.' })).statusCode).toBe(200);

    const all = await list(`?q=${tag}`);
    expect(all.statusCode).toBe(200);
    expect(all.json().meta).toEqual({ page: 1, per_page: 25, total: 3 });
    expect(all.json().data.map((x: { id: string }) => x.id)).toEqual([a, c, b]);
    expect(all.json().data[0]).toEqual({
      id: a,
      subject: `${tag} billing 100%`,
      category: 'billing',
      status: 'answered',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      user: { id: ann.id, email: ann.email, display_name: null },
      message_count: 2,
      closed_at: null,
      closed_by: null,
      close_reason: null,
    });
    const ids = async (query: string) => (await list(query)).json().data.map((x: { id: string }) => x.id);
    expect(await ids(`?q=${tag}&sort=created_at:asc`)).toEqual([a, b, c]);
    expect(await ids(`?q=${tag}%20crash`)).toEqual([c, b]);
    expect(await ids(`?q=${tag}&status=open&sort=created_at:asc`)).toEqual([b, c]);
    expect(await ids(`?q=${tag}&category=billing`)).toEqual([a]);
    expect(await ids(`?q=${tag}&user_id=${ben.id}`)).toEqual([c]);
    expect(await ids(`?q=100%25`)).toEqual([a]);
    // q matches the player's email as well as the subject, any case.
    expect(await ids(`?q=${encodeURIComponent(ben.email.toUpperCase())}`)).toEqual([c]);
    expect(await ids(`?q=${encodeURIComponent(ann.email)}&sort=created_at:asc`)).toEqual([a, b]);
    expect((await list(`?q=${tag}&per_page=1&page=2&sort=created_at:asc`)).json()).toEqual({
      data: [expect.objectContaining({ id: b })],
      meta: { page: 2, per_page: 1, total: 3 },
    });
  });

  it.each([['?sort=subject:asc'], ['?status=pending'], ['?category=x'], ['?user_id=nope'], ['?per_page=101']])(
    '400 SchemaError for %s',
    async (query) => {
      const response = await list(query);
      expect({ status: response.statusCode, name: response.json().error?.name }).toEqual({
        status: 400,
        name: 'SchemaError',
      });
    },
  );

  it('401 without a token; 403 naming support.read without it', async () => {
    const anonymous = await t.request({ method: 'GET', url: ADMIN });
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    const refused = await list('', outsider);
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'support.read' } },
    });
  });
});

describe('GET /v1/admin/support/tickets/{id}', () => {
  it('the ticket with the player and every message with its author', async () => {
    const player = await createUser(t.db);
    const key = await uploadAttachment(t, player, 'image/png', IMAGE_BYTES['image/png']);
    const id = await openTicket(player, { attachment_keys: [key] });
    expect((await post(agent, id, 'reply', { message: 'On it.' })).statusCode).toBe(200);
    const response = await t.request({ method: 'GET', url: `${ADMIN}/${id}`, token: reader.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id,
      subject: 'Help',
      category: 'technical',
      status: 'answered',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      user: { id: player.id, email: player.email, display_name: null },
      message_count: 2,
      closed_at: null,
      closed_by: null,
      close_reason: null,
      messages: [
        {
          id: expect.any(String),
          author: 'player',
          author_id: player.id,
          message: 'Please help.',
          attachment_keys: [key],
          attachments: [attachmentView(key, 'image/png', IMAGE_BYTES['image/png'].length)],
          created_at: expect.any(String),
        },
        {
          id: expect.any(String),
          author: 'staff',
          author_id: agent.id,
          message: 'On it.',
          attachment_keys: [],
          attachments: [],
          created_at: expect.any(String),
        },
      ],
    });
  });

  it('404 not_found for an unknown id; 403 naming support.read', async () => {
    const unknown = await t.request({ method: 'GET', url: `${ADMIN}/${randomUUID()}`, token: reader.token });
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    const refused = await t.request({ method: 'GET', url: `${ADMIN}/${randomUUID()}`, token: outsider.token });
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'support.read' } });
  });
});

describe('POST /v1/admin/support/tickets/{id}/reply', () => {
  it('stores a staff message, answers the ticket, mails the reply with escaped html, audits and emits', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player, { subject: 'Bill <b>&</b> co' });
    const message = 'Hi <script>alert("x")</script> & welcome\nLine two';
    const response = await post(agent, id, 'reply', { message });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      status: 'answered',
      message_count: 2,
      messages: [{ author: 'player' }, { author: 'staff', author_id: agent.id, message }],
    });
    const messageId = response.json().messages[1].id;

    const reference = id.slice(0, 8).toUpperCase();
    const mails = await mailsTo(player.id);
    expect(mails).toHaveLength(2);
    expect(mails[1]).toMatchObject({
      to_email: player.email,
      category: 'transactional',
      status: 'queued',
      template_id: null,
      subject: `Re: Bill <b>&</b> co [#${reference}]`,
      text: `Support answered your request "Bill <b>&</b> co" (reference #${reference}):\n\n${message}\n\nYou can answer in your account.\n`,
      html:
        `<p>Support answered your request <strong>Bill &lt;b&gt;&amp;&lt;/b&gt; co</strong> (reference #${reference}):</p>\n` +
        '<blockquote>Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; welcome<br>\nLine two</blockquote>\n<p>You can answer in your account.</p>',
    });
    expect(mails[1]!.html).not.toContain('<script>');

    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'support.ticket.reply',
        actor_id: agent.id,
        target_type: 'support_ticket',
        target_id: id,
        user_agent: 'support-test',
        summary: { message_id: messageId, mailed: true, before: { status: 'open' }, after: { status: 'answered' } },
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'support.ticket_replied',
          actorId: agent.id,
          payload: { ticket_id: id, user_id: player.id, message_id: messageId },
        }),
      ),
    );
    // The player writing again puts it back in the queue.
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/me/support/${id}/messages`,
          token: player.token,
          payload: { message: 'Thanks, but…' },
        })
      ).json().status,
    ).toBe('open');
  });

  it('replies without mail to a player without an address (audited mailed: false)', async () => {
    const created = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', created.id).execute();
    const id = await openTicket({ ...created, token: await signToken({ sub: created.id }) });
    const response = await post(agent, id, 'reply', { message: 'Done.' });
    expect(response.json()).toMatchObject({ status: 'answered', user: { id: created.id, email: null } });
    expect(await mailsTo(created.id)).toEqual([]);
    expect((await auditOf(t.db, requestIdOf(response)))[0]?.summary).toMatchObject({ mailed: false });
  });

  it('422 invalid_state on a closed ticket; 404 unknown; 400 bad body; 403 without support.write: nothing stored', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player);
    await expectRefused(() => post(reader, id, 'reply', { message: 'x' }), 403, {
      error: 'forbidden',
      details: { perm: 'support.write' },
    });
    await expectRefused(
      () => post(agent, id, 'reply', { message: '  ' }),
      400,
      schemaError({ path: ['message'], code: 'too_small' }),
    );
    await expectRefused(
      () => post(agent, id, 'reply', { message: 'x'.repeat(10_001) }),
      400,
      schemaError({ path: ['message'], code: 'too_big' }),
    );
    await expectRefused(
      () => post(agent, id, 'reply', { message: 'x', internal: true }),
      400,
      schemaError({ code: 'unrecognized_keys' }),
    );
    await expectRefused(() => post(agent, randomUUID(), 'reply', { message: 'x' }), 404, { error: 'not_found' });

    expect((await post(agent, id, 'close')).statusCode).toBe(200);
    await expectRefused(() => post(agent, id, 'reply', { message: 'late' }), 422, {
      error: 'invalid_state',
      details: { status: 'closed' },
    });
  });

  it('401 without a token', async () => {
    const response = await t.request({
      method: 'POST',
      url: `${ADMIN}/${randomUUID()}/reply`,
      payload: { message: 'x' },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
  });
});

describe('close and reopen', () => {
  it('close keeps who and why, audits, emits, and stops the player writing; a second close is 422', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player);
    const response = await post(agent, id, 'close', { reason: 'Duplicate of another ticket' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      status: 'closed',
      closed_at: expect.any(String),
      closed_by: agent.id,
      close_reason: 'Duplicate of another ticket',
    });
    expect(await ticketRow(id)).toMatchObject({
      status: 'closed',
      closed_by: agent.id,
      close_reason: 'Duplicate of another ticket',
      closed_at: expect.any(Date),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'support.ticket.close',
        actor_id: agent.id,
        target_type: 'support_ticket',
        target_id: id,
        reason: 'Duplicate of another ticket',
        summary: { before: { status: 'open' }, after: { status: 'closed' } },
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          name: 'support.ticket_closed',
          actorId: agent.id,
          payload: { ticket_id: id, user_id: player.id },
        }),
      ),
    );
    // The player sees it closed, without the staff reason.
    const mine = (await t.request({ method: 'GET', url: `/v1/me/support/${id}`, token: player.token })).json();
    expect(mine.status).toBe('closed');
    expect(mine).not.toHaveProperty('close_reason');
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/me/support/${id}/messages`,
          token: player.token,
          payload: { message: 'hey' },
        })
      ).statusCode,
    ).toBe(422);

    await expectRefused(() => post(agent, id, 'close', { reason: 'again' }), 422, {
      error: 'invalid_state',
      details: { status: 'closed' },
    });
  });

  it('close takes no body; 404 unknown; 400 bad reason; 403 without support.write', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player);
    await expectRefused(
      () => post(agent, id, 'close', { reason: 'r'.repeat(501) }),
      400,
      schemaError({ path: ['reason'], code: 'too_big' }),
    );
    await expectRefused(() => post(reader, id, 'close'), 403, {
      error: 'forbidden',
      details: { perm: 'support.write' },
    });
    expect((await ticketRow(id)).status).toBe('open');
    await expectRefused(() => post(agent, randomUUID(), 'close'), 404, { error: 'not_found' });
    const bare = await post(agent, id, 'close');
    expect(bare.json()).toMatchObject({ status: 'closed', close_reason: null });
    expect((await auditOf(t.db, requestIdOf(bare)))[0]).toMatchObject({ reason: null });
  });

  it('reopen puts a closed ticket back to open and clears its closing fields; 422 when not closed', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player);
    const notClosed = await post(agent, id, 'reopen');
    expect({ status: notClosed.statusCode, body: notClosed.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_state', details: { status: 'open' } },
    });
    expect((await post(agent, id, 'close', { reason: 'solved' })).statusCode).toBe(200);
    expect((await post(reader, id, 'reopen')).json()).toEqual({
      error: 'forbidden',
      details: { perm: 'support.write' },
    });
    const response = await post(agent, id, 'reopen', { reason: 'not solved after all' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: 'open', closed_at: null, closed_by: null, close_reason: null });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'support.ticket.reopen',
        target_id: id,
        reason: 'not solved after all',
        summary: { before: { status: 'closed', close_reason: 'solved' }, after: { status: 'open' } },
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({ name: 'support.ticket_reopened', payload: { ticket_id: id, user_id: player.id } }),
      ),
    );
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/me/support/${id}/messages`,
          token: player.token,
          payload: { message: 'thanks' },
        })
      ).statusCode,
    ).toBe(200);
    expect((await post(agent, randomUUID(), 'reopen')).json()).toEqual({ error: 'not_found' });
  });
});

describe('account removal', () => {
  it('a hard-deleted user takes their tickets and messages along', async () => {
    const player = await createUser(t.db);
    const id = await openTicket(player);
    await t.db.deleteFrom('users').where('id', '=', player.id).execute();
    expect(await t.db.selectFrom('support_tickets').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(await messageCount(id)).toBe(0);
  });
});
