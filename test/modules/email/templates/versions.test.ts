import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyUnsubscribeToken } from '../../../../src/modules/email/unsubscribe-token.js';
import { findUsableTemplate } from '../../../../src/modules/email/templates/usable-template.js';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { lockWaiterOn, sessionPid } from '../../../helpers/waiting.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

const BASE = '/v1/admin/email/templates';
const VERSION = { subject: 'Hello {{ name }}', html: '<p>Hi {{ name | "there" }}</p>', text: 'Hi {{ name }}' };

describe('email templates: versions, publish, unpublish, preview and findUsableTemplate', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['email.write', 'email.read']);
    reader = await createUser(t.db, ['email.read']);
  });
  afterAll(async () => t.close());

  const post = (url: string, payload?: object, user = editor) =>
    t.request({ method: 'POST', url, token: user.token, ...(payload === undefined ? {} : { payload }) });
  const addVersion = (key: string, payload: object, user = editor) => post(`${BASE}/${key}/versions`, payload, user);
  const publish = (key: string, payload: object) => post(`${BASE}/${key}/publish`, payload);
  const unpublish = (key: string) => post(`${BASE}/${key}/unpublish`);
  const preview = (key: string, payload?: object, user = reader) => post(`${BASE}/${key}/preview`, payload, user);
  const templateRow = (key: string) =>
    t.db.selectFrom('email_templates').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
  const versionRows = (templateId: string) =>
    t.db
      .selectFrom('email_template_versions')
      .selectAll()
      .where('template_id', '=', templateId)
      .orderBy('version')
      .execute();
  /** A template with these versions stored (1, 2, …), none published. */
  const templateWithVersions = async (...versions: object[]) => {
    const key = `v-${randomUUID().slice(0, 12)}`;
    const res = await post(BASE, { key, name: `Name of ${key}` });
    expect(res.statusCode).toBe(201);
    for (const version of versions) expect((await addVersion(key, version)).statusCode).toBe(200);
    return { key, id: res.json().id as string };
  };

  describe('POST /{key}/versions', () => {
    it('stores immutable, rising versions without publishing anything, and audits each', async () => {
      const { key, id } = await templateWithVersions();
      const first = await addVersion(key, { ...VERSION, note: 'first draft' });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ version: 1 });
      const second = await addVersion(key, { subject: 'Two', html: '<p>2</p>', text: '2' });
      expect(second.json()).toEqual({ version: 2 });

      expect((await versionRows(id)).map((v) => [v.version, v.subject, v.html, v.text, v.note, v.created_by])).toEqual([
        [1, VERSION.subject, VERSION.html, VERSION.text, 'first draft', editor.id],
        [2, 'Two', '<p>2</p>', '2', null, editor.id],
      ]);
      expect(await templateRow(key)).toMatchObject({
        published_version: null,
        published_at: null,
        updated_by: editor.id,
      });
      expect(await auditOf(t.db, requestIdOf(first))).toEqual([
        expect.objectContaining({
          action: 'email.template.version',
          actor_id: editor.id,
          target_type: 'email_template',
          target_id: id,
          reason: 'first draft',
          summary: { after: { version: 1, subject: VERSION.subject } },
        }),
      ]);
      expect((await auditOf(t.db, requestIdOf(second)))[0]).toMatchObject({
        reason: null,
        summary: { after: { version: 2, subject: 'Two' } },
      });
      // The database itself refuses to edit a stored version.
      await expect(
        t.db.updateTable('email_template_versions').set({ subject: 'changed' }).where('template_id', '=', id).execute(),
      ).rejects.toThrow(/immutable/);
      expect((await versionRows(id))[0]!.subject).toBe(VERSION.subject);
    });

    it('gives concurrent adds to one template distinct version numbers', async () => {
      const { key, id } = await templateWithVersions();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => addVersion(key, { ...VERSION, subject: `edit ${i}` })),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect(results.map((r) => r.json().version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect((await versionRows(id)).map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('refuses malformed placeholders with 422 invalid_request naming each, storing nothing', async () => {
      const { key, id } = await templateWithVersions();
      const res = await addVersion(key, { subject: 'Hi {{ name', html: '<p>{{ 1bad }}</p>', text: 'fine {{ name }}' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        details: {
          reason: 'the template has malformed placeholders',
          problems: [
            { part: 'subject', line: 1, column: 4, problem: expect.any(String) },
            { part: 'html', line: 1, column: 4, problem: expect.any(String) },
          ],
        },
      });
      expect(await versionRows(id)).toEqual([]);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it('answers 404 not_found for an unknown template, storing nothing', async () => {
      const res = await addVersion(`unknown-${randomUUID().slice(0, 8)}`, VERSION);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['an empty subject', { ...VERSION, subject: '' }, ['subject']],
      ['a subject of two lines', { ...VERSION, subject: 'Hello\r\nBcc: x@example.test' }, ['subject']],
      ['a subject of 301 characters', { ...VERSION, subject: 's'.repeat(301) }, ['subject']],
      ['an empty html', { ...VERSION, html: '' }, ['html']],
      ['html of 200001 characters', { ...VERSION, html: 'h'.repeat(200_001) }, ['html']],
      ['text of 100001 characters', { ...VERSION, text: 't'.repeat(100_001) }, ['text']],
      ['a missing text', { subject: 's', html: 'h' }, ['text']],
      ['a note of 501 characters', { ...VERSION, note: 'n'.repeat(501) }, ['note']],
      ['an unknown field', { ...VERSION, from: 'x' }, []],
    ])('refuses a version with %s (SchemaError), storing nothing', async (_name, payload, path) => {
      const { key, id } = await templateWithVersions();
      const res = await addVersion(key, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path }));
      expect(await versionRows(id)).toEqual([]);
    });

    it('accepts the largest subject, html, text and note', async () => {
      const { key, id } = await templateWithVersions();
      const res = await addVersion(key, {
        subject: 's'.repeat(300),
        html: 'h'.repeat(200_000),
        text: 't'.repeat(100_000),
        note: 'n'.repeat(500),
      });
      expect(res.json()).toEqual({ version: 1 });
      const [row] = await versionRows(id);
      expect([row!.subject.length, row!.html.length, row!.text.length, row!.note!.length]).toEqual([
        300, 200_000, 100_000, 500,
      ]);
    });
  });

  describe('GET /{key}/versions/{version}', () => {
    it('reads one version with its bodies and the vars it reads', async () => {
      const { key } = await templateWithVersions(VERSION, {
        subject: 'Code',
        html: '{{ user.code }} {{ app }}',
        text: '{{ user.name }}',
        note: 'n',
      });
      const res = await t.request({ method: 'GET', url: `${BASE}/${key}/versions/2`, token: reader.token });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        version: 2,
        subject: 'Code',
        html: '{{ user.code }} {{ app }}',
        text: '{{ user.name }}',
        note: 'n',
        is_published: false,
        created_by: editor.id,
        created_at: expect.any(String),
        variables: ['app', 'user.code', 'user.name'],
      });
    });

    it('answers 404 for an unknown version or template, and 400 for a version that is not a positive integer', async () => {
      const { key } = await templateWithVersions(VERSION);
      const version = await t.request({ method: 'GET', url: `${BASE}/${key}/versions/2`, token: reader.token });
      expect(version.statusCode).toBe(404);
      expect(version.json()).toEqual({ error: 'not_found', details: { version: 2 } });
      const template = await t.request({
        method: 'GET',
        url: `${BASE}/unknown-${randomUUID().slice(0, 8)}/versions/1`,
        token: reader.token,
      });
      expect(template.json()).toEqual({ error: 'not_found' });
      for (const bad of ['0', 'one', '2147483648']) {
        const res = await t.request({ method: 'GET', url: `${BASE}/${key}/versions/${bad}`, token: reader.token });
        expect(res.statusCode, bad).toBe(400);
        expect(res.json()).toEqual(schemaError({ path: ['version'] }));
      }
    });
  });

  describe('POST /{key}/publish and /{key}/unpublish', () => {
    it('publishes a version, rolls back to an older one, and audits each', async () => {
      const { key, id } = await templateWithVersions(VERSION, { ...VERSION, subject: 'Second' });
      const res = await publish(key, { version: 2 });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ version: 2 });
      const row = await templateRow(key);
      expect(row).toMatchObject({ published_version: 2, published_at: expect.any(Date), updated_by: editor.id });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'email.template.publish',
          actor_id: editor.id,
          target_type: 'email_template',
          target_id: id,
          summary: { before: { version: null }, after: { version: 2 } },
        }),
      ]);

      const back = await publish(key, { version: 1 });
      expect(back.json()).toEqual({ version: 1 });
      expect(await templateRow(key)).toMatchObject({ published_version: 1 });
      expect((await auditOf(t.db, requestIdOf(back)))[0]!.summary).toEqual({
        before: { version: 2 },
        after: { version: 1 },
      });
      expect(await findUsableTemplate(t.db, key)).toEqual({ id, key, category: 'marketing', version: 1 });
    });

    it('answers 404 for an unknown version or template, changing nothing', async () => {
      const { key } = await templateWithVersions(VERSION);
      await publish(key, { version: 1 });
      const res = await publish(key, { version: 7 });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', details: { version: 7 } });
      expect(await templateRow(key)).toMatchObject({ published_version: 1 });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
      const unknown = await publish(`unknown-${randomUUID().slice(0, 8)}`, { version: 1 });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
    });

    it.each([
      ['a missing version', {}],
      ['version 0', { version: 0 }],
      ['a string version', { version: '1' }],
      ['a version beyond integers', { version: 2_147_483_648 }],
    ])('refuses publishing %s with a SchemaError', async (_name, payload) => {
      const { key } = await templateWithVersions(VERSION);
      const res = await publish(key, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path: ['version'] }));
      expect(await templateRow(key)).toMatchObject({ published_version: null });
    });

    it('unpublishes (204, audited), after which the template cannot be used; a second unpublish changes nothing', async () => {
      const { key, id } = await templateWithVersions(VERSION);
      await publish(key, { version: 1 });
      const res = await unpublish(key);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(await templateRow(key)).toMatchObject({ published_version: null, published_at: null });
      expect(await versionRows(id)).toHaveLength(1);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'email.template.unpublish',
          target_id: id,
          summary: { before: { version: 1 }, after: { version: null } },
        }),
      ]);
      await expect(findUsableTemplate(t.db, key)).rejects.toMatchObject({ status: 422, code: 'invalid_request' });

      const again = await unpublish(key);
      expect(again.statusCode).toBe(204);
      expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
    });

    it('unpublish answers 404 for an unknown template and 400 for a body with fields', async () => {
      const unknown = await unpublish(`unknown-${randomUUID().slice(0, 8)}`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
      const { key } = await templateWithVersions(VERSION);
      const withBody = await post(`${BASE}/${key}/unpublish`, { version: 1 });
      expect(withBody.statusCode).toBe(400);
      expect(withBody.json()).toEqual(schemaError({ path: [] }));
    });
  });

  describe('POST /{key}/preview', () => {
    const parts = {
      subject: 'Hi {{ name }}',
      html: '<p>{{ name }} {{ email }} <a href="{{ unsubscribe_url }}">stop</a></p>',
      text: '{{ name }} {{ missing | "fallback" }}',
    };

    it('renders the published version, escaping vars in html only, with sample email and unsubscribe_url', async () => {
      const { key } = await templateWithVersions(parts, { ...parts, subject: 'Newer {{ name }}' });
      await publish(key, { version: 1 });
      const res = await preview(key, { vars: { name: '<script>alert("x")</script>' } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        version: 1,
        subject: 'Hi <script>alert("x")</script>',
        text: '<script>alert("x")</script> fallback',
        variables: ['email', 'missing', 'name', 'unsubscribe_url'],
      });
      expect(body.html).toContain(
        '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; recipient@example.com <a href="http://platform.test/v1/public/email/unsubscribe?token=',
      );
      expect(body.html).not.toContain('<script>');
      // The sample link shows where the real one goes, never a signed token: it would unsubscribe the address.
      const token = new URL(/href="([^"]+)"/.exec(body.html)![1]!.replace(/&amp;/g, '&')).searchParams.get('token')!;
      expect(token).toBe('withheld');
      expect(verifyUnsubscribeToken(t.kernel.signingKey, token)).toBeUndefined();
    });

    it('renders the newest version while unpublished, a chosen version on request, and vars given override the samples', async () => {
      const { key } = await templateWithVersions(parts, { ...parts, subject: 'Newer {{ name }}' });
      const newest = await preview(key);
      expect(newest.json()).toMatchObject({ version: 2, subject: 'Newer ' });
      const chosen = await preview(key, {
        version: 1,
        vars: { name: 'Ada', email: 'ada@example.test', unsubscribe_url: 'https://x.test/u' },
      });
      expect(chosen.json()).toEqual({
        version: 1,
        subject: 'Hi Ada',
        html: '<p>Ada ada@example.test <a href="https://x.test/u">stop</a></p>',
        text: 'Ada fallback',
        variables: ['email', 'missing', 'name', 'unsubscribe_url'],
      });
    });

    it('answers 404 for an unknown template or version, 422 for a template with no versions, 400 for bad input', async () => {
      const unknown = await preview(`unknown-${randomUUID().slice(0, 8)}`, {});
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
      const { key } = await templateWithVersions(parts);
      const version = await preview(key, { version: 9 });
      expect(version.statusCode).toBe(404);
      expect(version.json()).toEqual({ error: 'not_found', details: { version: 9 } });
      const empty = await templateWithVersions();
      const none = await preview(empty.key, {});
      expect(none.statusCode).toBe(422);
      expect(none.json()).toEqual({
        error: 'invalid_request',
        details: { reason: 'the template has no versions', template_key: empty.key },
      });
      const badVars = await preview(key, { vars: ['a'] });
      expect(badVars.statusCode).toBe(400);
      expect(badVars.json()).toEqual(schemaError({ path: ['vars'] }));
    });

    it('stores nothing and audits nothing', async () => {
      const { key, id } = await templateWithVersions(parts);
      const before = await templateRow(key);
      const res = await preview(key, { vars: { name: 'x' } });
      expect(res.statusCode).toBe(200);
      expect(await templateRow(key)).toEqual(before);
      expect(await versionRows(id)).toHaveLength(1);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });
  });

  describe('findUsableTemplate', () => {
    it('gives the published version of a template', async () => {
      const { key, id } = await templateWithVersions(VERSION, VERSION);
      await publish(key, { version: 2 });
      await t.request({
        method: 'PATCH',
        url: `${BASE}/${key}`,
        token: editor.token,
        payload: { category: 'transactional' },
      });
      expect(await findUsableTemplate(t.db, key)).toEqual({ id, key, category: 'transactional', version: 2 });
    });

    it('throws 404 not_found for an unknown key', async () => {
      const key = `unknown-${randomUUID().slice(0, 8)}`;
      await expect(findUsableTemplate(t.db, key)).rejects.toMatchObject({
        status: 404,
        code: 'not_found',
        details: { template_key: key },
      });
    });

    it('throws 422 invalid_request for a template with no published version', async () => {
      const { key } = await templateWithVersions(VERSION);
      await expect(findUsableTemplate(t.db, key)).rejects.toMatchObject({
        status: 422,
        code: 'invalid_request',
        details: { reason: 'the template has no published version', template_key: key },
      });
    });

    it('inside a transaction, holds the template published until the caller commits', async () => {
      const { key } = await templateWithVersions(VERSION);
      await publish(key, { version: 1 });
      let unpublished: Promise<unknown> | undefined;
      let settledEarly = false;
      await t.db.transaction().execute(async (trx) => {
        expect((await findUsableTemplate(trx, key)).version).toBe(1);
        unpublished = unpublish(key).then((res) => {
          settledEarly = true;
          return res;
        });
        // The request waits on the template's lock; on the embedded database the transaction holds
        // the one connection, where no sign of the wait shows, and the request cannot go on either.
        if (t.kernel.database.kind === 'postgres')
          await lockWaiterOn(t.db, await sessionPid(trx), "the unpublish to wait on the template's lock");
        expect(settledEarly).toBe(false);
        expect(
          (
            await trx
              .selectFrom('email_templates')
              .select('published_version')
              .where('key', '=', key)
              .executeTakeFirstOrThrow()
          ).published_version,
        ).toBe(1);
      });
      expect(((await unpublished) as { statusCode: number }).statusCode).toBe(204);
      expect(await templateRow(key)).toMatchObject({ published_version: null });
    });
  });
});
