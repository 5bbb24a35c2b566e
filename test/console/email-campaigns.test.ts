import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignDelivery } from '../../src/modules/email/campaigns/delivery.js';
import { createMailDispatcher, type MailDispatcher } from '../../src/modules/email/delivery/dispatcher.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-server.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Email audiences and campaigns in Chromium, as the demo marketing staff member:
 * a 50,000-row CSV uploaded through the file input, a campaign launched to it and sent through a
 * real SMTP server, paused and resumed on the way, and a file with bad rows refused. What the
 * screens did is read back through the API.
 */

const SLOW = 240_000;
const ROWS = 50_000;

describe('the staff console: Email audiences and campaigns', () => {
  let service: ConsoleService;
  let smtp: SmtpTestServer;
  let token: string;
  let dispatcher: MailDispatcher;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    service = await startConsoleService({ config: { smtpUrl: smtp.url, mailRatePerSecond: 1_000_000 } });
    token = await service.tokenFor('demo-marketing');
    // The dispatcher the test drives (no scheduled jobs run here), following campaigns as the service's own does.
    dispatcher = createMailDispatcher(service.t.kernel, { batchSize: 200, concurrency: 8 });
    dispatcher.onSettled(new CampaignDelivery(service.t.kernel.events).onSettled);
    await call('POST', '/v1/admin/email/templates', {
      key: 'winter-sale',
      name: 'Winter sale',
      version: {
        subject: 'Winter sale, {{ display_name | "player" }}',
        html: '<p>{{headline}}</p>',
        text: '{{headline}}',
      },
    });
    await call('POST', '/v1/admin/email/templates/winter-sale/publish', { version: 1 });
  }, SLOW);
  afterAll(async () => {
    await service?.close();
    await smtp?.close();
  });

  async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
    const answer = await service.t.request({ method, url, token, ...(payload === undefined ? {} : { payload }) });
    expect(answer.statusCode, `${method} ${url}: ${answer.body}`).toBeLessThan(300);
    return answer.body === '' ? undefined : answer.json();
  }

  /** Sends rounds until `until` holds or nothing is left to claim. */
  async function send() {
    for (;;) {
      const round = await dispatcher.runOnce();
      if (round.claimed + round.skipped === 0) return;
    }
  }

  async function noSidewaysScroll(page: Page) {
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  let audienceId = '';

  it(
    'uploads a 50,000-row audience with progress, sees the count, and is shown the first bad rows of a refused file',
    async () => {
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, token, '/admin/email/audiences');
      await page.getByRole('heading', { name: 'Audiences', level: 2 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      // An old list goes, its confirmation saying how many members go with it.
      const old = await call('POST', '/v1/admin/email/audiences', { name: 'Autumn leftovers' });
      await call('PUT', `/v1/admin/email/audiences/${old.id}/members`, {
        members: ['a@players.test', 'b@players.test'],
      });
      await page.reload();
      const oldRow = page.getByRole('row').filter({ hasText: 'Autumn leftovers' });
      await oldRow.getByRole('button', { name: 'Delete…' }).click();
      await page
        .getByRole('alertdialog')
        .getByText(/Its list of 2 members is removed with it/)
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete audience' }).click();
      await page.getByText('Audience Autumn leftovers deleted').waitFor();
      expect(
        (await service.t.request({ method: 'GET', url: `/v1/admin/email/audiences/${old.id}`, token })).statusCode,
      ).toBe(404);
      await screenshotBothSizes(page, 'email-audiences');

      await page.getByRole('button', { name: 'New audience…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Winter players');
      await dialog.getByLabel('Description (optional)').fill('Everyone who played last winter');
      await dialog.getByRole('button', { name: 'Create audience' }).click();
      await page.getByRole('heading', { name: 'Winter players', level: 2 }).waitFor();
      audienceId = page.url().split('/').at(-1) ?? '';

      const csv = `email\r\n${Array.from({ length: ROWS }, (_, index) => `player${index}@players.test`).join('\r\n')}\r\n`;
      // Progress events as the browser reports them on the real request.
      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'winter.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByText(`winter.csv: ${(ROWS + 1).toLocaleString('en-GB')} lines`).waitFor();
      await page.getByRole('button', { name: 'Upload and replace members' }).click();
      await page.getByText('winter.csv uploaded: Winter players now has 50,000 members.').waitFor({ timeout: 60_000 });
      await expect(page.getByLabel('Upload progress').getAttribute('value')).resolves.toBe('100');
      await page.getByText('50,000 of 50,000 mailable').waitFor();
      await page.getByRole('heading', { name: 'Members (50,000)' }).waitFor();
      await page.getByRole('rowheader', { name: 'player0@players.test' }).waitFor();
      expect((await call('GET', `/v1/admin/email/audiences/${audienceId}`)).member_count).toBe(ROWS);
      expect(await call('GET', `/v1/admin/email/audiences/${audienceId}/preview-count`)).toEqual({
        total: ROWS,
        mailable: ROWS,
        suppressed: 0,
        deleted_users: 0,
      });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-audience');
      await noSidewaysScroll(page);

      // A file with 25 bad rows: refused whole, the first 20 shown with the count of all.
      const bad = ['email', 'ok@players.test', ...Array.from({ length: 25 }, (_, index) => `not-an-address-${index}`)];
      await page.getByLabel('CSV file').setInputFiles({
        name: 'bad.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(bad.join('\n')),
      });
      await page.getByRole('button', { name: 'Upload and replace members…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/The 50,000 members on the list now are replaced/).waitFor();
      await confirm.getByRole('button', { name: 'Replace members' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'Nothing was changed' });
      await refusal.getByText('25 rows are not an address.').waitFor();
      await refusal.getByText('The first 20:').waitFor();
      const refused = refusal.getByRole('table', { name: 'Refused rows' });
      await expect(refused.getByRole('row').count()).resolves.toBe(21);
      await refused.getByRole('row', { name: '3 not-an-address-0' }).waitFor();
      expect((await call('GET', `/v1/admin/email/audiences/${audienceId}`)).member_count).toBe(ROWS);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-audience-refused');

      // One member leaves the list.
      const row = page.getByRole('row').filter({ hasText: 'player0@players.test' });
      await row.getByRole('button', { name: 'Remove…' }).click();
      await confirm.getByRole('button', { name: 'Remove member' }).click();
      await page.getByRole('heading', { name: 'Members (49,999)' }).waitFor();
      const members = await call('GET', `/v1/admin/email/audiences/${audienceId}/members?q=player0@`);
      expect(members.meta.total).toBe(0);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'creates a campaign on the 50,000-member audience by name, launches it, and cancels it saying what is lost',
    async () => {
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, token, '/admin/email/campaigns');
      await page.getByRole('heading', { name: 'Campaigns', level: 2 }).waitFor();
      await page.getByRole('button', { name: 'New campaign…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Winter sale 2026');
      await dialog.getByRole('button', { name: /Template/ }).click();
      await page.getByRole('option', { name: /Winter sale \(winter-sale, v1\)/ }).click();
      await dialog.getByRole('button', { name: /Audience/ }).click();
      await page.getByRole('option', { name: /Winter players \(49,999 members\)/ }).click();
      await dialog.getByLabel(/Variables/).fill('{"headline": "Thirty percent off"}');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-campaign-create');
      await dialog.getByRole('button', { name: 'Create draft' }).click();
      await page.getByRole('heading', { name: 'Winter sale 2026', level: 2 }).waitFor();
      const campaignId = page.url().split('/').at(-1) ?? '';
      expect(await call('GET', `/v1/admin/email/campaigns/${campaignId}`)).toMatchObject({
        status: 'draft',
        template_key: 'winter-sale',
        audience_id: audienceId,
        vars: { headline: 'Thirty percent off' },
      });

      await page.getByRole('button', { name: 'Edit…' }).click();
      await dialog.getByLabel('Stop after this many failures in a row').fill('25');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Campaign Winter sale 2026 saved').waitFor();
      expect((await call('GET', `/v1/admin/email/campaigns/${campaignId}`)).max_consecutive_failures).toBe(25);

      // Scheduled for the day after tomorrow, then back to a draft.
      const at = `${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)}T12:00`;
      await page.getByRole('button', { name: 'Schedule…' }).click();
      await dialog.getByLabel('Launch at (your time)').fill(at);
      await dialog.getByRole('button', { name: 'Schedule' }).click();
      await page.getByText('Winter sale 2026 scheduled').waitFor();
      const scheduled = await call('GET', `/v1/admin/email/campaigns/${campaignId}`);
      expect(scheduled.status).toBe('scheduled');
      expect(new Date(scheduled.scheduled_at).getTime()).toBeGreaterThan(Date.now() + 86_400_000);
      await page.getByRole('button', { name: 'Unschedule' }).click();
      await page.getByText('Winter sale 2026 unscheduled: back to draft').waitFor();
      expect((await call('GET', `/v1/admin/email/campaigns/${campaignId}`)).status).toBe('draft');

      await page.getByRole('button', { name: 'Launch now…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/49,999 members of Winter players are mailed winter-sale now/).waitFor();
      await confirm.getByRole('button', { name: 'Launch' }).click();
      await page.getByText('0 of 49,999 sent').waitFor({ timeout: 60_000 });
      await expect(page.getByTestId('count-queued').textContent()).resolves.toBe('49,999');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-campaign-sending');

      await page.getByRole('button', { name: 'Cancel campaign…' }).click();
      await confirm.getByText(/The 49,999 messages not yet sent are dropped and never go out/).waitFor();
      await confirm.getByLabel('Reason').fill('Wrong discount in the copy');
      await confirm.getByRole('button', { name: 'Cancel campaign' }).click();
      await page.getByText('Winter sale 2026 cancelled').waitFor();
      await page.getByText('A cancelled campaign is final').waitFor();
      const cancelled = await call('GET', `/v1/admin/email/campaigns/${campaignId}`);
      expect(cancelled).toMatchObject({ status: 'cancelled', status_reason: 'Wrong discount in the copy' });
      expect(cancelled.counts).toMatchObject({ cancelled: ROWS - 1, queued: 0, sent: 0 });
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'launches a campaign, pauses and resumes it, and watches it reach sent through the SMTP peer',
    async () => {
      // Sending runs at tens of messages a second on a shared CI machine: this one goes to a list of 150.
      const recipients = 150;
      const audience = await call('POST', '/v1/admin/email/audiences', { name: 'Winter early birds' });
      await call('PUT', `/v1/admin/email/audiences/${audience.id}/members`, {
        csv: Array.from({ length: recipients }, (_, index) => `early${index}@players.test`).join('\n'),
      });
      const campaign = await call('POST', '/v1/admin/email/campaigns', {
        name: 'Early bird sale',
        template_key: 'winter-sale',
        audience_id: audience.id,
        vars: { headline: 'Early birds first' },
      });

      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, token, `/admin/email/campaigns/${campaign.id}`);
      await page.getByRole('heading', { name: 'Early bird sale', level: 2 }).waitFor();
      await page.getByRole('link', { name: 'Winter early birds' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Launch now…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/150 members of Winter early birds are mailed/).waitFor();
      await confirm.getByRole('button', { name: 'Launch' }).click();
      await page.getByText('0 of 150 sent').waitFor();

      // Some go out; then a pause holds the rest.
      const small = createMailDispatcher(service.t.kernel, { batchSize: 10, concurrency: 2 });
      small.onSettled(new CampaignDelivery(service.t.kernel.events).onSettled);
      const read = () => call('GET', `/v1/admin/email/campaigns/${campaign.id}`);
      for (let round = 0; round < 50 && (await read()).counts.sent < 20; round++) await small.runOnce();
      const before = (await read()).counts.sent;
      expect(before).toBeGreaterThanOrEqual(20);
      await page.getByText(`${before} of 150 sent`).waitFor();
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByText('Early bird sale paused: queued mail is held').waitFor();
      const paused = await read();
      expect(paused).toMatchObject({ status: 'paused' });
      expect(paused.counts).toMatchObject({ sent: before, held: recipients - before });
      await send();
      expect((await read()).counts.sent).toBe(before);
      const toEarlyBirds = () => smtp.received.filter((mail) => mail.envelope.to[0]?.startsWith('early')).length;
      expect(toEarlyBirds()).toBe(before);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-campaign-paused');

      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByText('Early bird sale resumed').waitFor();
      const sending = send();
      // The page follows the sending on its own, to the end.
      await page.getByText('150 of 150 sent').waitFor({ timeout: 60_000 });
      await sending;
      await page.getByText('A sent campaign is final').waitFor();
      const outboxLink = page.getByRole('link', { name: "This campaign's messages in the outbox" });
      await expect(outboxLink.getAttribute('href')).resolves.toBe(`/admin/email/outbox?campaign_id=${campaign.id}`);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-campaign-sent');
      await noSidewaysScroll(page);

      const outbox = await call('GET', `/v1/admin/email/outbox?campaign_id=${campaign.id}&status=sent&per_page=1`);
      expect(outbox.meta.total).toBe(recipients);
      const stored = await call('GET', `/v1/admin/email/campaigns/${campaign.id}`);
      expect(stored).toMatchObject({ status: 'sent', recipients });
      expect(stored.counts).toMatchObject({ sent: recipients, failed: 0, queued: 0, held: 0 });
      expect(toEarlyBirds()).toBe(recipients);

      // Its mail in the outbox, and the list naming it with its progress.
      await outboxLink.click();
      await page.getByRole('heading', { name: 'Outbox', level: 2 }).waitFor();
      await page.getByText('Mail of the campaign').getByText('Early bird sale').waitFor();
      await page
        .getByRole('row')
        .filter({ hasText: 'early0@players.test' })
        .or(page.getByRole('row').filter({ hasText: /early\d+@players\.test/ }))
        .first()
        .waitFor();
      await page.getByRole('navigation', { name: 'Email' }).getByRole('link', { name: 'Campaigns' }).click();
      await page.getByRole('row').filter({ hasText: 'Early bird sale' }).getByText('150 of 150').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'email-campaigns');
      expect(pageProblems(page)).toEqual([]);
      await context.close();

      // Marketing (no audit.read, so no dashboard) sees a change made elsewhere at once: its area's channel
      // (area:email) brings the event, and the page reads the campaign again.
      const second = await call('POST', '/v1/admin/email/campaigns', {
        name: 'Early bird reminder',
        template_key: 'winter-sale',
        audience_id: audience.id,
      });
      const owner = await service.window();
      await signInWithToken(
        owner.page,
        service.origin,
        await service.tokenFor('demo-marketing'),
        `/admin/email/campaigns/${second.id}`,
      );
      await owner.page.getByText('Not launched yet: nothing is queued.').waitFor();
      await owner.page.getByText('Live: changes made anywhere show here as they happen.').waitFor();
      await call('POST', `/v1/admin/email/campaigns/${second.id}/cancel`, {});
      await owner.page.getByText('A cancelled campaign is final').waitFor();
      await owner.context.close();
    },
    SLOW,
  );
});
