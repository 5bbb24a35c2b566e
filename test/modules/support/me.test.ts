import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, type TestApp, type TestUser } from '../../helpers/app.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { startStorageApp } from '../../helpers/uploads.js';
import { attachmentView, uploadAttachment } from './fixtures.js';
import { appInFrozenMinute } from '../../helpers/frozen-minute.js';
import { schemaError } from '../../helpers/expectations.js';
import { signToken } from '../../helpers/tokens.js';

/**
 * The player's side of support: opening a ticket (its rows, confirmation mail and event), the
 * own list and ticket, follow-up messages and their status moves, every refusal, that another
 * user's ticket answers like an unknown one, and the 5-per-hour limit shared by both writes.
 */

let t: TestApp;
let ada: TestUser;
let bob: TestUser;

const ME = '/v1/me/support';
const open = (user: TestUser, payload: unknown, app = t) =>
  app.request({ method: 'POST', url: ME, token: user.token, payload: payload as object });
const write = (user: TestUser, id: string, payload: unknown, app = t) =>
  app.request({ method: 'POST', url: `${ME}/${id}/messages`, token: user.token, payload: payload as object });
const get = (user: TestUser, id: string) => t.request({ method: 'GET', url: `${ME}/${id}`, token: user.token });
const ticketRow = (id: string) =>
  t.db.selectFrom('support_tickets').selectAll().where('id', '=', id).executeTakeFirst();
const messageRows = (ticketId: string) =>
  t.db
    .selectFrom('support_messages')
    .selectAll()
    .where('ticket_id', '=', ticketId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const mailsTo = (user: TestUser) =>
  t.db.selectFrom('email_messages').selectAll().where('user_id', '=', user.id).orderBy('created_at').execute();
const ticketsOf = (user: TestUser) =>
  t.db.selectFrom('support_tickets').select('id').where('user_id', '=', user.id).execute();

const VALID = {
  subject: 'Cannot start a game',
  message: 'It hangs on the loading screen.\nEvery time.',
  category: 'technical',
};

/** A ticket of `user` made through the route (each user has 5 writes an hour: tests use fresh users). */
async function ticketOf(user: TestUser, body: Record<string, unknown> = VALID): Promise<{ id: string }> {
  const response = await open(user, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const LOG = Buffer.from('2026-11-24 launcher: loading screen hangs\n');
const SHOT = IMAGE_BYTES['image/png'];

beforeAll(async () => {
  t = await startStorageApp();
  ada = await createUser(t.db);
  bob = await createUser(t.db);
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/me/support', () => {
  it('201: the ticket with its first message; rows, confirmation mail and support.ticket_opened stored', async () => {
    const player = await createUser(t.db);
    const keys = [
      await uploadAttachment(t, player, 'text/plain', LOG),
      await uploadAttachment(t, player, 'image/png', SHOT),
    ];
    const response = await open(player, { ...VALID, attachment_keys: keys });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      subject: VALID.subject,
      category: 'technical',
      status: 'open',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      messages: [
        {
          id: expect.any(String),
          author: 'player',
          message: VALID.message,
          attachment_keys: keys,
          attachments: [
            attachmentView(keys[0]!, 'text/plain', LOG.length),
            attachmentView(keys[1]!, 'image/png', SHOT.length),
          ],
          created_at: expect.any(String),
        },
      ],
    });
    // The uploads are spent: confirmed with their checked size.
    expect(
      await t.db
        .selectFrom('storage_uploads')
        .select(['key', 'size'])
        .where('key', 'in', keys)
        .where('confirmed_at', 'is not', null)
        .orderBy('key')
        .execute(),
    ).toEqual([...keys].sort().map((key) => ({ key, size: key.endsWith('.txt') ? LOG.length : SHOT.length })));
    expect(await ticketRow(body.id)).toEqual({
      id: body.id,
      user_id: player.id,
      subject: VALID.subject,
      category: 'technical',
      status: 'open',
      updated_at: expect.any(Date),
      created_at: expect.any(Date),
      closed_at: null,
      closed_by: null,
      close_reason: null,
    });
    expect(await messageRows(body.id)).toEqual([
      {
        id: body.messages[0].id,
        ticket_id: body.id,
        author: 'player',
        author_id: player.id,
        body: VALID.message,
        attachment_keys: keys,
        created_at: expect.any(Date),
      },
    ]);
    const reference = body.id.slice(0, 8).toUpperCase();
    expect(await mailsTo(player)).toEqual([
      expect.objectContaining({
        to_email: player.email,
        category: 'transactional',
        status: 'queued',
        template_id: null,
        subject: `We received your request: Cannot start a game [#${reference}]`,
        text: `We received your support request "Cannot start a game" (reference #${reference}).\n\nOur team will answer by email. You can follow the conversation in your account.\n`,
        html: `<p>We received your support request <strong>Cannot start a game</strong> (reference #${reference}).</p>\n<p>Our team will answer by email. You can follow the conversation in your account.</p>`,
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'support.ticket_opened',
          actorId: player.id,
          payload: { ticket_id: body.id, user_id: player.id, category: 'technical' },
        }),
      ),
    );
  });

  it('escapes the subject in the confirmation html; trims subject and message; no attachments is []', async () => {
    const player = await createUser(t.db);
    const response = await open(player, {
      subject: '  <b>Refund</b> & "more"  ',
      message: '  why?  ',
      category: 'billing',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      subject: '<b>Refund</b> & "more"',
      messages: [{ message: 'why?', attachment_keys: [] }],
    });
    const [mail] = await mailsTo(player);
    expect(mail?.html).toContain('<strong>&lt;b&gt;Refund&lt;/b&gt; &amp; &quot;more&quot;</strong>');
    expect(mail?.text).toContain('"<b>Refund</b> & "more""');
  });

  it('queues no mail for an account without an address, and still opens the ticket', async () => {
    const created = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', created.id).execute();
    // A token without an email claim: one with it would put the address back on the account.
    const player = { ...created, token: await signToken({ sub: created.id }) };
    const { id } = await ticketOf(player);
    expect(
      (await t.db.selectFrom('users').select('email').where('id', '=', player.id).executeTakeFirst())?.email,
    ).toBeNull();
    expect(await ticketRow(id)).toMatchObject({ user_id: player.id, status: 'open' });
    expect(await mailsTo(player)).toEqual([]);
  });

  it.each([
    {
      name: 'no subject',
      body: { message: 'm', category: 'other' },
      issue: { path: ['subject'], code: 'invalid_type' },
    },
    { name: 'a blank subject', body: { ...VALID, subject: '   ' }, issue: { path: ['subject'], code: 'too_small' } },
    {
      name: 'a subject over 200',
      body: { ...VALID, subject: 's'.repeat(201) },
      issue: { path: ['subject'], code: 'too_big', maximum: 200 },
    },
    {
      name: 'a subject with a line break',
      body: { ...VALID, subject: 'Hi\r\nBcc: x@example.test' },
      issue: { path: ['subject'], format: 'regex' },
    },
    {
      name: 'a message over 10000',
      body: { ...VALID, message: 'm'.repeat(10_001) },
      issue: { path: ['message'], code: 'too_big', maximum: 10_000 },
    },
    {
      name: 'an unknown category',
      body: { ...VALID, category: 'love-letters' },
      issue: { path: ['category'], code: 'invalid_value' },
    },
    {
      name: 'six attachments',
      body: { ...VALID, attachment_keys: ['a', 'b', 'c', 'd', 'e', 'f'] },
      issue: { path: ['attachment_keys'], code: 'too_big', maximum: 5 },
    },
    {
      name: 'a key outside the pattern',
      body: { ...VALID, attachment_keys: ['../etc passwd'] },
      issue: { path: ['attachment_keys', 0], format: 'regex' },
    },
    {
      name: 'a repeated key',
      body: { ...VALID, attachment_keys: ['a/b', 'a/b'] },
      issue: { path: ['attachment_keys'], code: 'custom' },
    },
    { name: 'an unknown field', body: { ...VALID, priority: 'urgent' }, issue: { code: 'unrecognized_keys' } },
  ])('400 SchemaError for $name; nothing stored', async ({ body, issue }) => {
    const player = await createUser(t.db);
    const response = await open(player, body);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: schemaError(issue) });
    expect(await ticketsOf(player)).toEqual([]);
    expect(await mailsTo(player)).toEqual([]);
  });

  it('401 without a token', async () => {
    const response = await t.request({ method: 'POST', url: ME, payload: VALID });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
  });
});

describe('GET /v1/me/support and /v1/me/support/{id}', () => {
  it("lists only the caller's tickets, newest first; `meta.total` counts the caller's own", async () => {
    const player = await createUser(t.db);
    const first = await ticketOf(player, { ...VALID, subject: 'first' });
    const second = await ticketOf(player, { ...VALID, subject: 'second', category: 'account' });
    await ticketOf(await createUser(t.db), { ...VALID, subject: 'someone else' });
    const response = await t.request({ method: 'GET', url: ME, token: player.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        {
          id: second.id,
          subject: 'second',
          category: 'account',
          status: 'open',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          id: first.id,
          subject: 'first',
          category: 'technical',
          status: 'open',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      meta: { page: 1, per_page: 25, total: 2 },
    });
    const page = (query: string) => t.request({ method: 'GET', url: `${ME}?${query}`, token: player.token });
    expect((await page('per_page=1')).json()).toEqual({
      data: [expect.objectContaining({ id: second.id })],
      meta: { page: 1, per_page: 1, total: 2 },
    });
    expect((await page('per_page=1&page=2')).json()).toEqual({
      data: [expect.objectContaining({ id: first.id })],
      meta: { page: 2, per_page: 1, total: 2 },
    });
    // Past the last page: nothing, and still the total.
    expect((await page('per_page=1&page=3')).json()).toEqual({ data: [], meta: { page: 3, per_page: 1, total: 2 } });
    expect((await page('per_page=101')).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: ME })).json()).toEqual({ error: 'missing_token' });
  });

  it('shows one ticket with its messages; staff replies carry no staff id', async () => {
    const { id } = await ticketOf(ada);
    const staff = await createUser(t.db, ['support.write']);
    const reply = await t.request({
      method: 'POST',
      url: `/v1/admin/support/tickets/${id}/reply`,
      token: staff.token,
      payload: { message: 'Try again now.' },
    });
    expect(reply.statusCode).toBe(200);
    const response = await get(ada, id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id,
      subject: VALID.subject,
      category: 'technical',
      status: 'answered',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      messages: [
        {
          id: expect.any(String),
          author: 'player',
          message: VALID.message,
          attachment_keys: [],
          attachments: [],
          created_at: expect.any(String),
        },
        {
          id: expect.any(String),
          author: 'staff',
          message: 'Try again now.',
          attachment_keys: [],
          attachments: [],
          created_at: expect.any(String),
        },
      ],
    });
  });

  it("404 not_found alike for another user's ticket and an unknown id; 400 for a malformed id", async () => {
    const { id } = await ticketOf(ada);
    const other = await get(bob, id);
    const unknown = await get(bob, randomUUID());
    expect({ status: other.statusCode, body: other.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect({ status: unknown.statusCode, body: unknown.body }).toEqual({ status: other.statusCode, body: other.body });
    expect(
      (await t.request({ method: 'GET', url: ME, token: bob.token })).json().data.map((x: { id: string }) => x.id),
    ).not.toContain(id);
    expect((await get(bob, 'not-a-uuid')).statusCode).toBe(400);
  });
});

describe('POST /v1/me/support/{id}/messages', () => {
  it('adds the message; an answered ticket waits on staff again (open); an event follows', async () => {
    const player = await createUser(t.db);
    const { id } = await ticketOf(player);
    await t.db.updateTable('support_tickets').set({ status: 'answered' }).where('id', '=', id).execute();
    const before = (await ticketRow(id))!.updated_at;
    const key = await uploadAttachment(t, player, 'image/png', SHOT);
    const response = await write(player, id, { message: 'Still broken.', attachment_keys: [key] });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      status: 'open',
      messages: [
        { author: 'player' },
        {
          author: 'player',
          message: 'Still broken.',
          attachment_keys: [key],
          attachments: [attachmentView(key, 'image/png', SHOT.length)],
        },
      ],
    });
    const rows = await messageRows(id);
    expect(rows[1]).toEqual({
      id: expect.any(String),
      ticket_id: id,
      author: 'player',
      author_id: player.id,
      body: 'Still broken.',
      attachment_keys: [key],
      created_at: expect.any(Date),
    });
    expect((await ticketRow(id))!.updated_at.getTime()).toBeGreaterThanOrEqual(before.getTime());
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          name: 'support.ticket_message_added',
          actorId: player.id,
          payload: { ticket_id: id, user_id: player.id, message_id: rows[1]!.id },
        }),
      ),
    );
  });

  it('422 invalid_state on a closed ticket; nothing stored', async () => {
    const player = await createUser(t.db);
    const { id } = await ticketOf(player);
    await t.db
      .updateTable('support_tickets')
      .set({ status: 'closed', closed_at: new Date() })
      .where('id', '=', id)
      .execute();
    const response = await write(player, id, { message: 'Hello?' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_state', details: { status: 'closed' } },
    });
    expect(await messageRows(id)).toHaveLength(1);
    expect((await ticketRow(id))?.status).toBe('closed');
  });

  it("404 not_found alike for another user's ticket and an unknown id; nothing changes", async () => {
    const { id } = await ticketOf(ada);
    const stored = { ticket: await ticketRow(id), messages: await messageRows(id) };
    const other = await write(bob, id, { message: 'mine now' });
    const unknown = await write(bob, randomUUID(), { message: 'mine now' });
    expect({ status: other.statusCode, body: other.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    expect(unknown.body).toBe(other.body);
    expect({ ticket: await ticketRow(id), messages: await messageRows(id) }).toEqual(stored);
  });

  it('400 SchemaError for an empty message or an unknown field; 401 without a token', async () => {
    const player = await createUser(t.db);
    const { id } = await ticketOf(player);
    expect((await write(player, id, { message: '' })).json()).toEqual(
      schemaError({ path: ['message'], code: 'too_small' }),
    );
    expect((await write(player, id, { message: 'x', status: 'closed' })).json()).toEqual(
      schemaError({ code: 'unrecognized_keys' }),
    );
    expect(await messageRows(id)).toHaveLength(1);
    const anonymous = await t.request({ method: 'POST', url: `${ME}/${id}/messages`, payload: { message: 'x' } });
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
  });
});

describe('rate limit: 5 per hour per user, opening and writing together', () => {
  const { app, frozenAt } = appInFrozenMinute();
  const HOUR = 3_600_000;

  it('the 6th write in an hour is 429 rate_limited and stores nothing; another user passes', async () => {
    const player = await createUser(app().db);
    const first = await open(player, VALID, app());
    expect(first.statusCode).toBe(201);
    for (let i = 0; i < 3; i += 1) expect((await open(player, VALID, app())).statusCode).toBe(201);
    expect((await write(player, first.json().id, { message: 'fifth' }, app())).statusCode).toBe(200);
    const refused = await open(player, VALID, app());
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 429,
      body: { error: 'rate_limited' },
    });
    const windowEnd = Math.ceil(frozenAt / HOUR) * HOUR;
    expect(refused.headers['retry-after']).toBe(String(Math.ceil((windowEnd - frozenAt) / 1000)));
    const refusedMessage = await write(player, first.json().id, { message: 'sixth' }, app());
    expect({ status: refusedMessage.statusCode, body: refusedMessage.json() }).toEqual({
      status: 429,
      body: { error: 'rate_limited' },
    });
    expect(
      await app().db.selectFrom('support_tickets').select('id').where('user_id', '=', player.id).execute(),
    ).toHaveLength(4);
    expect(
      await app().db.selectFrom('support_messages').select('id').where('ticket_id', '=', first.json().id).execute(),
    ).toHaveLength(2);
    expect((await open(await createUser(app().db), VALID, app())).statusCode).toBe(201);
  });
});
