import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Email templates and delivery screens in Chromium, as the demo marketing staff
 * member: a template written, previewed with sample values and published (read back through the
 * API); a failed message retried; an address suppressed and let go again; the waitlist downloaded
 * as CSV and its rows checked. axe and screenshots on each screen.
 */

const SLOW = 180_000;
const KEY = 'spring-welcome';

describe('the staff console: Email templates and delivery', () => {
  let service: ConsoleService;
  let token: string;
  let page: Page;

  beforeAll(async () => {
    service = await startConsoleService();
    token = await service.tokenFor('demo-marketing');
    ({ page } = await service.window());
    await signInWithToken(page, service.origin, token, '/admin/email');
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const apiGet = async (url: string) => {
    const answer = await service.t.request({ method: 'GET', url, token });
    expect(answer.statusCode).toBe(200);
    return answer.json();
  };
  const checkScreen = async (name: string) => {
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, name);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it(
    'creates a template, writes a version with a variable, previews it with a sample value and publishes it',
    async () => {
      // /email opens the templates; the area is in the top bar for marketing.
      await page.getByRole('heading', { name: 'Templates', level: 2 }).waitFor();
      await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Email' }).waitFor();
      await page.getByRole('row').filter({ hasText: 'demo-newsletter' }).waitFor();
      await checkScreen('email-templates');

      await page.getByRole('button', { name: 'New template…' }).click();
      const create = page.getByRole('dialog');
      await create.getByLabel('Key', { exact: true }).fill(KEY);
      await create.getByLabel('Name', { exact: true }).fill('Spring welcome');
      await create.getByLabel('Description (optional)').fill('Sent to new players in spring.');
      await create.getByRole('button', { name: 'Create template' }).click();
      await page.getByRole('heading', { name: 'Spring welcome', level: 2 }).waitFor();
      expect(page.url()).toBe(`${service.origin}/admin/email/templates/${KEY}`);

      // A malformed placeholder is refused, its place named beneath the field; fixed, it saves.
      const editor = page.getByRole('region', { name: 'New version' });
      await editor.getByLabel('Subject').fill('Welcome, {{ first_name | "friend" }}');
      await editor
        .getByLabel('HTML body')
        .fill('<p>Hi {{ first_name }}, spring is here.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>');
      await editor.getByLabel('Text body').fill('Hi {{ first_name }}, spring is {{ here');
      const variables = editor.getByRole('list', { name: 'Variables this draft reads' });
      await variables.getByText('first_name').waitFor();
      await variables.getByText('unsubscribe_url').waitFor();
      await editor.getByLabel('Note (optional)').fill('first draft');
      await editor.getByRole('button', { name: 'Save version' }).click();
      await editor.getByText(/^Line 1, column \d+: expected \{\{ name \}\}/).waitFor();
      await editor
        .getByLabel('Text body')
        .fill('Hi {{ first_name }}, spring is here.\n\nUnsubscribe: {{ unsubscribe_url }}');
      await expect(editor.getByText(/^Line 1, column/).count()).resolves.toBe(0);
      await editor.getByRole('button', { name: 'Save version' }).click();
      await page.getByText('v1 saved (not sent with until published)').first().waitFor();

      // The saved version opens with the variables it reads; a preview renders a sample value.
      const opened = page.getByRole('region', { name: /^Version 1/ });
      await opened.getByRole('list', { name: 'Variables' }).getByText('first_name').waitFor();
      await opened.getByLabel('Sample first_name').fill('Ada');
      await opened.getByRole('button', { name: 'Preview v1' }).click();
      await opened.getByText('Subject: Welcome, Ada').waitFor();
      await opened.getByRole('article', { name: 'HTML preview of v1' }).getByText('Hi Ada, spring is here.').waitFor();
      // The sample unsubscribe link is signed: its token never shows.
      await opened.getByText(/unsubscribe\?token=\[hidden\]/).waitFor();
      await checkScreen('email-template');

      await page.getByRole('row').filter({ hasText: 'first draft' }).getByRole('button', { name: 'Publish…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/Mail is made from v1 from now on/).waitFor();
      await confirm.getByRole('button', { name: 'Publish v1' }).click();
      await page.getByText('Spring welcome v1 is live').first().waitFor();

      const stored = await apiGet(`/v1/admin/email/templates/${KEY}`);
      expect(stored).toMatchObject({
        name: 'Spring welcome',
        description: 'Sent to new players in spring.',
        category: 'marketing',
        published_version: 1,
        latest_version: 1,
      });
      expect(stored.published.variables).toEqual(['first_name', 'unsubscribe_url']);
      expect(stored.published.subject).toBe('Welcome, {{ first_name | "friend" }}');
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'retries a failed message, whose page hides the signed unsubscribe link',
    async () => {
      const secret = 'u1.c2VjcmV0.c2lnbmF0dXJl';
      const failed = await service.t.db
        .insertInto('email_messages')
        .values({
          to_email: 'bounce-once@example.test',
          category: 'marketing',
          subject: 'Spring is here',
          html: `<p>Hello.</p><p><a href="${service.origin}/v1/public/email/unsubscribe?token=${secret}">Unsubscribe</a></p>`,
          text: `Hello.\n\nUnsubscribe: ${service.origin}/v1/public/email/unsubscribe?token=${secret}`,
          status: 'failed',
          attempts: 5,
          last_error: '550 5.1.1 mailbox unavailable',
        })
        .returning('id')
        .executeTakeFirstOrThrow();

      await page.getByRole('navigation', { name: 'Email' }).getByRole('link', { name: 'Outbox' }).click();
      await page.getByRole('heading', { name: 'Outbox', level: 2 }).waitFor();
      await page.getByRole('row').first().waitFor();
      await page.goto(`${service.origin}/admin/email/outbox?status=failed`);
      const row = page.getByRole('row').filter({ hasText: 'bounce-once@example.test' });
      await row.getByText('550 5.1.1 mailbox unavailable').waitFor();
      await checkScreen('email-outbox');

      // The message's page: where it stands, and its bodies with the token hidden.
      await row.getByRole('rowheader').click();
      await page.getByRole('heading', { name: 'Spring is here', level: 2 }).waitFor();
      await page.getByRole('heading', { name: 'Text', level: 3 }).waitFor();
      // The area's nav still says where the page sits: within the Outbox.
      await expect(
        page
          .getByRole('navigation', { name: 'Email' })
          .getByRole('link', { name: 'Outbox' })
          .getAttribute('aria-current'),
      ).resolves.toBe('true');
      const content = await page.content();
      expect(content).not.toContain(secret);
      await page
        .getByText(/unsubscribe\?token=\[hidden\]/)
        .first()
        .waitFor();
      await page.getByText('List-Unsubscribe', { exact: true }).waitFor();
      await checkScreen('email-message');

      await page.getByRole('button', { name: 'Retry…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/attempts counted afresh/).waitFor();
      await confirm.getByRole('button', { name: 'Send again' }).click();
      await page.getByText('The message to bounce-once@example.test is queued again').first().waitFor();
      const retried = await apiGet(`/v1/admin/email/outbox/${failed.id}`);
      expect(['queued', 'sending', 'sent']).toContain(retried.status);
      expect(retried.last_error).toBeNull();
      const audit = await service.t.db
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', 'email.message.retry')
        .where('target_id', '=', failed.id)
        .execute();
      expect(audit).toHaveLength(1);
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'suppresses an address with a reason and lets mail go to it again',
    async () => {
      const address = 'no-more-mail@example.test';
      await page.goto(`${service.origin}/admin/email/suppressions`);
      await page.getByRole('heading', { name: 'Suppressions', level: 2 }).waitFor();
      await page.getByRole('button', { name: 'Suppress an address…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Email address').fill(address);
      await dialog.getByLabel('Note (optional)').fill('Asked by phone to get no newsletters');
      await dialog.getByRole('button', { name: 'Suppress', exact: true }).click();
      await page.getByText(`${address} gets no marketing mail from now on`).first().waitFor();
      const row = page.getByRole('row').filter({ hasText: address });
      await row.getByText('staff').waitFor();
      const listed = await apiGet(`/v1/admin/email/suppressions?q=${encodeURIComponent(address)}`);
      expect(listed.data).toEqual([expect.objectContaining({ email: address, reason: 'manual', source: 'staff' })]);
      await checkScreen('email-suppressions');

      await row.getByRole('button', { name: 'Remove…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/campaigns reach it again/).waitFor();
      await confirm.getByLabel('Reason').fill('Subscribed again by phone');
      await confirm.getByRole('button', { name: 'Remove suppression' }).click();
      await page.getByText(`${address} can get marketing mail again`).first().waitFor();
      // The toast comes first; the list is read again after it.
      await page.getByRole('row').filter({ hasText: address }).waitFor({ state: 'detached' });
      expect((await apiGet(`/v1/admin/email/suppressions?q=${encodeURIComponent(address)}`)).data).toEqual([]);
      const audit = await service.t.db
        .selectFrom('audit_log')
        .select(['action', 'reason'])
        .where('action', 'in', ['email.suppression.add', 'email.suppression.remove'])
        .orderBy('created_at')
        .execute();
      expect(audit.map((entry) => entry.reason)).toEqual([
        'Asked by phone to get no newsletters',
        'Subscribed again by phone',
      ]);
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'downloads the waitlist as CSV, every row quoted where it must be',
    async () => {
      const signups = [
        { email: 'early-bird@example.test', source: 'landing-hero' },
        { email: 'quoted@example.test', source: '=HYPERLINK("x")', referrer: 'Said "hi", then left' },
        { email: 'plain@example.test' },
      ];
      for (const body of signups) {
        const answer = await service.t.request({ method: 'POST', url: '/v1/public/waitlist', payload: body });
        expect(answer.statusCode).toBe(202);
      }
      await page.goto(`${service.origin}/admin/email/waitlist`);
      await page.getByRole('heading', { name: 'Waitlist', level: 2 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'quoted@example.test' }).waitFor();
      await checkScreen('email-waitlist');

      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toMatch(/^waitlist-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path()) ?? '', 'utf8');
      const listed = await apiGet('/v1/admin/email/waitlist?per_page=100');
      const lines = csv.split('\r\n');
      expect(lines.at(-1)).toBe('');
      expect(lines[0]).toBe('email,source,referrer,ip,created_at');
      expect(lines.slice(1, -1)).toHaveLength(listed.meta.total);
      const byEmail = new Map(listed.data.map((row: { email: string }) => [row.email, row]));
      const ipOf = (email: string) => (byEmail.get(email) as { ip: string | null }).ip ?? '';
      const createdOf = (email: string) => (byEmail.get(email) as { created_at: string }).created_at;
      expect(lines).toContain(
        `early-bird@example.test,landing-hero,,${ipOf('early-bird@example.test')},${createdOf('early-bird@example.test')}`,
      );
      // Quotes doubled, the comma kept inside quotes; a formula is defused with an apostrophe.
      expect(lines).toContain(
        `quoted@example.test,"'=HYPERLINK(""x"")","Said ""hi"", then left",${ipOf('quoted@example.test')},` +
          createdOf('quoted@example.test'),
      );
      expect(lines).toContain(`plain@example.test,,,${ipOf('plain@example.test')},${createdOf('plain@example.test')}`);
      await page.getByText('Downloaded 3 signups').first().waitFor();
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'deletes a template after a confirmation naming what is lost',
    async () => {
      await page.goto(`${service.origin}/admin/email/templates/${KEY}`);
      await page.getByRole('heading', { name: 'Spring welcome', level: 2 }).waitFor();
      await page.getByRole('button', { name: 'Edit details…' }).click();
      const edit = page.getByRole('dialog');
      await edit.getByLabel('Name', { exact: true }).fill('Spring welcome (old)');
      await edit.getByRole('button', { name: 'Save details' }).click();
      await page.getByRole('heading', { name: 'Spring welcome (old)', level: 2, exact: true }).waitFor();
      expect((await apiGet(`/v1/admin/email/templates/${KEY}`)).name).toBe('Spring welcome (old)');

      await page.getByRole('button', { name: 'Unpublish…' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Unpublish' }).click();
      await page.getByText('Spring welcome (old) is unpublished').first().waitFor();
      expect((await apiGet(`/v1/admin/email/templates/${KEY}`)).published_version).toBeNull();

      await page.getByRole('button', { name: 'Delete…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/its one version are deleted for good/).waitFor();
      const remove = confirm.getByRole('button', { name: 'Delete template' });
      await expect(remove.isDisabled()).resolves.toBe(true);
      await confirm.getByLabel(`Type ${KEY} to confirm`).fill(KEY);
      await remove.click();
      await page.getByRole('heading', { name: 'Templates', level: 2 }).waitFor();
      const gone = await service.t.request({ method: 'GET', url: `/v1/admin/email/templates/${KEY}`, token });
      expect(gone.statusCode).toBe(404);
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );
});
