import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestApp, type TestUser } from '../../helpers/app.js';
import { schemaError } from '../../helpers/expectations.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { pathOf, putBytes, requestUpload, startStorageApp } from '../../helpers/uploads.js';
import { requestAttachmentUpload, uploadAttachment } from './fixtures.js';

/**
 * Support attachments: the upload URL, every check a message makes of the keys it names (each
 * refusal writing nothing), and how the files are served back.
 */

let t: TestApp & { storageDir: string };

beforeAll(async () => {
  t = await startStorageApp();
});
afterAll(async () => t.close());

const UPLOAD_URL = '/v1/me/support/attachments/upload-url';
const PNG = IMAGE_BYTES['image/png'];
const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n');
const TEXT = Buffer.from('error: the launcher could not reach the stream\n');
const BINARY = Buffer.from([0x00, 0x01, 0x02, 0x03, 0x10, 0x11]);

const openTicket = (user: TestUser, keys: string[]) =>
  t.request({
    method: 'POST',
    url: '/v1/me/support',
    token: user.token,
    payload: { subject: 'Crash', message: 'See attached.', category: 'technical', attachment_keys: keys },
  });
const intent = (key: string) =>
  t.db
    .selectFrom('storage_uploads')
    .select(['user_id', 'purpose', 'content_type', 'max_size', 'confirmed_at', 'size'])
    .where('key', '=', key)
    .executeTakeFirst();
const ticketCount = async (user: TestUser) =>
  (await t.db.selectFrom('support_tickets').select('id').where('user_id', '=', user.id).execute()).length;

describe('POST /v1/me/support/attachments/upload-url', () => {
  it('grants one key under the caller and records the intent', async () => {
    const player = await createUser(t.db);
    const grant = await requestAttachmentUpload(t, player, 'application/pdf', PDF.length);
    expect(grant).toEqual({
      upload_url: expect.stringContaining('/v1/public/storage/upload?'),
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      key: expect.stringMatching(new RegExp(`^support/${player.id}/[0-9a-f]{32}\\.pdf$`)),
      max_size: PDF.length,
      expires_at: expect.any(String),
    });
    expect(await intent(grant.key)).toEqual({
      user_id: player.id,
      purpose: 'support_attachment',
      content_type: 'application/pdf',
      max_size: PDF.length,
      confirmed_at: null,
      size: null,
    });
  });

  it.each([
    { name: 'an HTML file', body: { content_type: 'text/html', size: 10 }, path: ['content_type'] },
    { name: 'an empty file', body: { content_type: 'text/plain', size: 0 }, path: ['size'] },
    { name: 'over 10 MiB', body: { content_type: 'image/png', size: 10 * 1024 * 1024 + 1 }, path: ['size'] },
    { name: 'an unknown field', body: { content_type: 'image/png', size: 10, key: 'support/x/evil.png' }, path: [] },
  ])('400 for $name; no intent recorded', async ({ body, path }) => {
    const player = await createUser(t.db);
    const response = await t.request({ method: 'POST', url: UPLOAD_URL, token: player.token, payload: body });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path }));
    expect(await t.db.selectFrom('storage_uploads').select('key').where('user_id', '=', player.id).execute()).toEqual(
      [],
    );
  });

  it('401 without a token', async () => {
    const response = await t.request({
      method: 'POST',
      url: UPLOAD_URL,
      payload: { content_type: 'image/png', size: 10 },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
  });

  it('429 past 20 an hour per user, with Retry-After; another user is not held back', async () => {
    const player = await createUser(t.db);
    for (let i = 0; i < 20; i++) await requestAttachmentUpload(t, player, 'image/png', 10);
    const refused = await t.request({
      method: 'POST',
      url: UPLOAD_URL,
      token: player.token,
      payload: { content_type: 'image/png', size: 10 },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(
      await t.db.selectFrom('storage_uploads').select('key').where('user_id', '=', player.id).execute(),
    ).toHaveLength(20);
    await requestAttachmentUpload(t, await createUser(t.db), 'image/png', 10);
  });
});

describe('attachment checks when a message names a key', () => {
  it('accepts PNG, PDF and text uploads of the caller and serves them back (images inline, the rest as downloads)', async () => {
    const player = await createUser(t.db);
    const keys = [
      await uploadAttachment(t, player, 'image/png', PNG),
      await uploadAttachment(t, player, 'application/pdf', PDF),
      await uploadAttachment(t, player, 'text/plain', TEXT),
    ];
    const response = await openTicket(player, keys);
    expect(response.statusCode, response.body).toBe(201);
    const attachments = response.json().messages[0].attachments as Array<{
      key: string;
      url: string;
      content_type: string;
      size: number;
    }>;
    expect(attachments.map((a) => [a.key, a.content_type, a.size])).toEqual([
      [keys[0], 'image/png', PNG.length],
      [keys[1], 'application/pdf', PDF.length],
      [keys[2], 'text/plain', TEXT.length],
    ]);
    const served = await Promise.all(attachments.map((a) => t.request({ method: 'GET', url: pathOf(a.url) })));
    expect(
      served.map((r) => [
        r.statusCode,
        r.headers['content-type'],
        r.headers['content-disposition'],
        r.headers['x-content-type-options'],
      ]),
    ).toEqual([
      [200, 'image/png', 'inline', 'nosniff'],
      [200, 'application/pdf', 'attachment', 'nosniff'],
      [200, 'text/plain', 'attachment', 'nosniff'],
    ]);
    expect(served[2]!.rawPayload.equals(TEXT)).toBe(true);
  });

  /** Each case: what the key is, and the details of the 422 it gets. */
  const refusals: Array<{
    name: string;
    key: (player: TestUser) => Promise<string>;
    details: Record<string, unknown>;
  }> = [
    {
      name: "another user's upload",
      key: async () => uploadAttachment(t, await createUser(t.db), 'image/png', PNG),
      details: { reason: 'unknown_attachment', index: 1 },
    },
    {
      name: 'a key nobody was given',
      key: async (player) => `support/${player.id}/${'0'.repeat(32)}.png`,
      details: { reason: 'unknown_attachment', index: 1 },
    },
    {
      name: "the caller's avatar upload",
      key: async (player) => (await requestUpload(t, player, 'image/png', PNG.length)).key,
      details: { reason: 'unknown_attachment', index: 1 },
    },
    {
      name: 'a key already attached',
      key: async (player) => {
        const key = await uploadAttachment(t, player, 'image/png', PNG);
        expect((await openTicket(player, [key])).statusCode).toBe(201);
        return key;
      },
      details: { reason: 'already_used', index: 1 },
    },
    {
      name: 'an expired upload',
      key: async (player) => {
        const key = await uploadAttachment(t, player, 'image/png', PNG);
        await t.db
          .updateTable('storage_uploads')
          .set({ expires_at: new Date(Date.now() - 1_000) })
          .where('key', '=', key)
          .execute();
        return key;
      },
      details: { reason: 'upload_expired', index: 1 },
    },
    {
      name: 'nothing uploaded',
      key: async (player) => (await requestAttachmentUpload(t, player, 'image/png', PNG.length)).key,
      details: { reason: 'object_missing', index: 1 },
    },
    {
      name: 'a file grown past its declared size',
      key: async (player) => {
        const key = await uploadAttachment(t, player, 'text/plain', TEXT);
        writeFileSync(join(t.storageDir, key), Buffer.concat([TEXT, TEXT]));
        return key;
      },
      details: { reason: 'too_large', index: 1, size: 2 * TEXT.length, max_size: TEXT.length },
    },
    {
      name: 'text declared as PNG',
      key: async (player) => {
        const grant = await requestAttachmentUpload(t, player, 'image/png', TEXT.length);
        expect((await putBytes(t, grant.upload_url, TEXT, grant.headers)).statusCode).toBe(204);
        return grant.key;
      },
      details: { reason: 'type_mismatch', index: 1, expected: 'image/png', detected: 'text/plain' },
    },
    {
      name: 'binary declared as text',
      key: async (player) => uploadAttachment(t, player, 'text/plain', BINARY),
      details: { reason: 'type_mismatch', index: 1, expected: 'text/plain', detected: null },
    },
  ];

  it.each(refusals)(
    '422 for $name (the second key: index 1); no ticket, the uploads left unused',
    async ({ key: keyFor, details }) => {
      const player = await createUser(t.db);
      const good = await uploadAttachment(t, player, 'image/png', PNG);
      const key = await keyFor(player);
      const ticketsBefore = await ticketCount(player);
      const before = await intent(key);
      const response = await openTicket(player, [good, key]);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({ error: 'invalid_request', details });
      expect(await ticketCount(player)).toBe(ticketsBefore);
      expect(await intent(good)).toMatchObject({ confirmed_at: null, size: null });
      expect(await intent(key)).toEqual(before);
    },
  );

  it('keys that are no storage keys at all (`..` segments) are unknown attachments, never a 500', async () => {
    const player = await createUser(t.db);
    const response = await openTicket(player, ['support/../x.png', 'a/../../b.txt']);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_request', details: { reason: 'unknown_attachment', index: 0 } },
    });
    expect(await ticketCount(player)).toBe(0);
  });

  it("a message to another user's ticket is 404 before any attachment is looked at", async () => {
    const owner = await createUser(t.db);
    const created = await openTicket(owner, []);
    const intruder = await createUser(t.db);
    const key = await uploadAttachment(t, intruder, 'image/png', PNG);
    const response = await t.request({
      method: 'POST',
      url: `/v1/me/support/${created.json().id}/messages`,
      token: intruder.token,
      payload: { message: 'hi', attachment_keys: [key, 'support/nobody/x.png'] },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: 'not_found' },
    });
    expect(await intent(key)).toMatchObject({ confirmed_at: null });
  });

  it('a follow-up message attaches a fresh upload; the same key again is already_used', async () => {
    const player = await createUser(t.db);
    const id = (await openTicket(player, [])).json().id as string;
    const key = await uploadAttachment(t, player, 'application/pdf', PDF);
    const write = () =>
      t.request({
        method: 'POST',
        url: `/v1/me/support/${id}/messages`,
        token: player.token,
        payload: { message: 'The report.', attachment_keys: [key] },
      });
    const first = await write();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().messages[1].attachments).toEqual([
      expect.objectContaining({ key, content_type: 'application/pdf', size: PDF.length }),
    ]);
    const again = await write();
    expect({ status: again.statusCode, body: again.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_request', details: { reason: 'already_used', index: 0 } },
    });
    expect(await t.db.selectFrom('support_messages').select('id').where('ticket_id', '=', id).execute()).toHaveLength(
      2,
    );
  });
});
