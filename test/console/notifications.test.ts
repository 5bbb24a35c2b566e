import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../helpers/tokens.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Notifications area in Chromium, as the demo marketing staff member: a broadcast
 * to a segment counted before sending, confirmed with the count and channel, received by the
 * player, and listed in the history with its delivery.
 */

const SLOW = 180_000;

describe('the staff console: Notifications', () => {
  let service: ConsoleService;

  beforeAll(async () => {
    service = await startConsoleService();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  it('broadcasts in-app to a segment, shows its count first, the player holds it, and the history shows it', async () => {
    const [player, other] = await service.players();
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('demo-marketing'), '/admin/notifications');
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link', { name: 'Notifications' }).isVisible()).resolves.toBe(true);

    // Every active user first; then the segment, counted as it is typed (the service's count).
    const count = page.getByTestId('segment-count');
    await count.getByText(/users? match(es)?/).waitFor();
    const everyone = await service.t.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    await expect(count.textContent()).resolves.toContain(`${Number(everyone.n).toLocaleString('en-GB')} users match`);
    await page.getByLabel('Email or name contains').fill(player!.email);
    await count.getByText('1 user matches').waitFor();
    await expect(count.textContent()).resolves.toContain(`matching “${player!.email}”`);

    // Marketing holds both channels here: in-app (announcements.write) and email (email.send).
    await page.getByText('In-app notification', { exact: true }).click();
    await page.getByText('Email from a published template').waitFor();
    // With email ticked, the template is picked by name among the published ones (the demo publishes one).
    await page.getByText('Email from a published template').click();
    await page.getByRole('button', { name: /Template/ }).click();
    const options = await page.getByRole('option').allTextContents();
    expect(options[0]).toBe('Choose a published template');
    expect(options.length).toBeGreaterThan(1);
    await page.keyboard.press('Escape');
    await page.getByText('Email from a published template').click();
    await page.getByLabel('Title').fill('Winter bonus: 500 credits');
    await page.getByLabel('Text (optional)').fill('They are in your balance already.');
    await page.getByLabel('Link (optional)').fill('/billing');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'notifications-broadcast');

    await page.getByRole('button', { name: 'Send…' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(/Send in-app notification to 1 user/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Send to 1 user' }).click();
    const result = page.getByRole('region', { name: 'Sent' });
    await result.waitFor();
    await expect(result.locator('dd').allTextContents()).resolves.toEqual(['1', '1', 'not requested']);

    // The player's own notifications hold it; another player's do not.
    const mine = await service.t.request({
      method: 'GET',
      url: '/v1/me/notifications',
      token: await signToken({ sub: player!.id, email: player!.email }),
    });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data).toContainEqual(
      expect.objectContaining({
        title: 'Winter bonus: 500 credits',
        body: 'They are in your balance already.',
        action_url: '/billing',
        kind: 'info',
        read: false,
      }),
    );
    const theirs = await service.t.request({
      method: 'GET',
      url: '/v1/me/notifications',
      token: await signToken({ sub: other!.id, email: other!.email }),
    });
    expect(theirs.json().data.map((each: { title: string }) => each.title)).not.toContain('Winter bonus: 500 credits');

    // The history lists it with its delivery; its page shows who read it.
    await page.getByRole('navigation', { name: 'Notifications' }).getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'Broadcast history' }).waitFor();
    const row = page.getByRole('row', { name: /Winter bonus: 500 credits/ });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('in-app, read by 0');
    // Who sent it, by name (the demo's marketing staff member).
    await row.getByRole('link', { name: 'Yuki Tanaka' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'notifications-history');
    await row.getByRole('rowheader').click();
    await page.getByRole('heading', { name: 'Winter bonus: 500 credits', level: 1 }).waitFor();
    await page.getByText(`matching “${player!.email}”`).waitFor();
    await page.getByRole('link', { name: 'Yuki Tanaka' }).waitFor();
    await expect(page.locator('section[aria-labelledby="in-app-heading"] dd').last().textContent()).resolves.toBe(
      '0 of 1',
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  }, 90_000);

  it('offers only the channels the caller holds: a content editor sees in-app only', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('demo-content-editor'), '/admin/notifications');
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.getByText('In-app notification', { exact: true }).waitFor();
    await expect(page.getByText('Email from a published template').count()).resolves.toBe(0);
    await page.getByText('Email needs email.send.').waitFor();
    await expect(page.getByRole('button', { name: 'Send…' }).isDisabled()).resolves.toBe(true);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
