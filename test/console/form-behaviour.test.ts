import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleService,
  pageProblems,
  SIZES,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * How the shared form pieces behave when staff get something wrong and fix it (issue 42): the
 * service's issue for a field, a client message from the API's bounds, and failure toasts. Each
 * flow ends with its stored effect read back through the API.
 */

const SLOW = 180_000;

interface Announcement {
  title: string;
  action_url: string | null;
  starts_at: string | null;
  ends_at: string | null;
}

describe('the staff console: forms after a mistake', () => {
  let service: ConsoleService;

  beforeAll(async () => {
    service = await startConsoleService();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  async function announcements(): Promise<Announcement[]> {
    const response = await service.t.request({
      method: 'GET',
      url: '/v1/admin/site/announcements?per_page=100',
      token: await service.tokenFor('owner'),
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as { data: Announcement[] }).data;
  }

  async function newAnnouncement(page: Page): Promise<Locator> {
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/site/announcements');
    await page.getByRole('heading', { name: 'Announcements' }).waitFor();
    await page.getByRole('button', { name: 'New announcement…' }).click();
    return page.getByRole('dialog');
  }

  const invalid = (field: Locator) => field.getAttribute('aria-invalid');
  /** The field's message goes within a moment of the edit, before any click or blur. */
  async function cleared(dialog: Locator, field: Locator): Promise<void> {
    await dialog.locator('.react-aria-FieldError').waitFor({ state: 'detached', timeout: 2_000 });
    expect(await invalid(field)).not.toBe('true');
  }

  it('takes a corrected link after the service refused it, with one click on Create', { timeout: 60_000 }, async () => {
    const { page, context } = await service.window();
    const dialog = await newAnnouncement(page);
    await dialog.getByLabel('Title').fill('Status page moved');
    const link = dialog.getByLabel('Link (optional)');
    await link.fill('javascript:alert(1)');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Could not save the announcement').waitFor();
    // The service's issue, beside the link field.
    await dialog.locator('.react-aria-FieldError').waitFor();
    expect(await invalid(link)).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);

    await link.fill('https://status.example.com/');
    await cleared(dialog, link);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Announcement created').waitFor();
    await dialog.waitFor({ state: 'detached' });
    const stored = (await announcements()).find((each) => each.title === 'Status page moved');
    expect(stored?.action_url).toBe('https://status.example.com/');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('takes a corrected end after "ends_at must be after starts_at"', { timeout: 60_000 }, async () => {
    const { page, context } = await service.window();
    const dialog = await newAnnouncement(page);
    await dialog.getByLabel('Title').fill('Spring maintenance window');
    await dialog.getByLabel('Shown from (empty: at once)').fill('2030-03-02T10:00');
    const until = dialog.getByLabel('Shown until (empty: until turned off)');
    await until.fill('2030-03-01T10:00');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Could not save the announcement').waitFor();
    await dialog.locator('.react-aria-FieldError').waitFor();
    expect(await invalid(until)).toBe('true');

    await until.fill('2030-03-02T12:00');
    await cleared(dialog, until);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Announcement created').waitFor();
    const stored = (await announcements()).find((each) => each.title === 'Spring maintenance window');
    // Europe/Berlin (the test window's zone) is UTC+1 in March 2030.
    expect(stored).toMatchObject({ starts_at: '2030-03-02T09:00:00.000Z', ends_at: '2030-03-02T11:00:00.000Z' });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('takes a corrected start after "ends_at must be after starts_at" (the other field of the issue)', {
    timeout: 60_000,
  }, async () => {
    const { page, context } = await service.window();
    const dialog = await newAnnouncement(page);
    await dialog.getByLabel('Title').fill('Autumn maintenance window');
    const from = dialog.getByLabel('Shown from (empty: at once)');
    await from.fill('2030-10-02T10:00');
    const until = dialog.getByLabel('Shown until (empty: until turned off)');
    await until.fill('2030-10-01T10:00');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.locator('.react-aria-FieldError').waitFor();
    expect(await invalid(until)).toBe('true');

    // The start was the mistake: editing it clears the issue shown on the end, and Create takes it.
    await from.fill('2030-09-30T10:00');
    await cleared(dialog, until);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Announcement created').waitFor();
    const stored = (await announcements()).find((each) => each.title === 'Autumn maintenance window');
    // Europe/Berlin is UTC+2 until late October 2030.
    expect(stored).toMatchObject({ starts_at: '2030-09-30T08:00:00.000Z', ends_at: '2030-10-01T08:00:00.000Z' });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('shows a failure toast clear of the dialog buttons, announced, and gone after a while', {
    timeout: 60_000,
  }, async () => {
    const { page, context } = await service.window();
    const dialog = await newAnnouncement(page);
    await dialog.getByLabel('Title').fill('Toast check');
    await dialog.getByLabel('Link (optional)').fill('javascript:alert(1)');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const toast = page.getByRole('alertdialog').filter({ hasText: 'Could not save the announcement' });
    await toast.waitFor();
    // In the notifications region, which React Aria announces as a landmark and live region.
    await page
      .getByRole('region', { name: /notification/i })
      .getByText('Could not save the announcement')
      .waitFor();
    for (const viewport of Object.values(SIZES)) {
      await page.setViewportSize(viewport);
      const over = await toast.boundingBox();
      for (const name of ['Create', 'Cancel']) {
        const button = await dialog.getByRole('button', { name }).boundingBox();
        expect(over).not.toBeNull();
        expect(button).not.toBeNull();
        if (over === null || button === null) continue;
        const overlaps =
          over.x < button.x + button.width &&
          button.x < over.x + over.width &&
          over.y < button.y + button.height &&
          button.y < over.y + over.height;
        expect({ viewport, name, overlaps }).toEqual({ viewport, name, overlaps: false });
      }
    }
    await page.setViewportSize(SIZES.desktop);
    expect(await seriousViolations(page)).toEqual([]);
    await toast.waitFor({ state: 'detached', timeout: 15_000 });
    // The dialog stays for another try: nothing typed is lost.
    await expect(dialog.getByLabel('Title').inputValue()).resolves.toBe('Toast check');
    expect((await announcements()).some((each) => each.title === 'Toast check')).toBe(false);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("says the service's reason for a conflict, not a guess at one", { timeout: 60_000 }, async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/site/pages');
    await page.getByRole('button', { name: 'New page…' }).click();
    const dialog = page.getByRole('dialog');
    // The demo has a page at /about.
    await dialog.getByLabel('Address').fill('about');
    await dialog.getByLabel('Title').fill('About, again');
    await dialog.getByRole('button', { name: 'Create page' }).click();
    await page.getByText('This conflicts with what is stored: slug taken.').first().waitFor();
    const pages = await service.t.request({
      method: 'GET',
      url: '/v1/admin/site/pages?per_page=100',
      token: await service.tokenFor('owner'),
    });
    expect((pages.json().data as Array<{ title: string }>).some((each) => each.title === 'About, again')).toBe(false);
    await context.close();
  });

  it('clears "Please lengthen" as soon as the reason is long enough, and one click on Ban bans', {
    timeout: 60_000,
  }, async () => {
    const player = (await service.players())[0]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), `/admin/users/${player.id}`);
    await page.getByRole('button', { name: /Account actions/ }).click();
    await page.getByRole('menuitem', { name: /Ban…/ }).click();
    // By its name: the success toast that follows is an alertdialog too.
    const dialog = page.getByRole('alertdialog', { name: /^Ban / });
    const reason = dialog.getByLabel('Reason');
    await reason.fill('no');
    await dialog.getByRole('button', { name: 'Ban' }).click();
    // The browser's check of minlength=3 (REQUEST_FIELDS), shown beside the field.
    await dialog.locator('.react-aria-FieldError').waitFor();
    expect(await invalid(reason)).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);

    await reason.fill('Repeated chargebacks');
    await cleared(dialog, reason);
    await dialog.getByRole('button', { name: 'Ban' }).click();
    // The dialog closes once the service has answered.
    await dialog.waitFor({ state: 'detached' });
    const response = await service.t.request({
      method: 'GET',
      url: `/v1/admin/users/${player.id}`,
      token: await service.tokenFor('owner'),
    });
    expect((response.json() as { status: string }).status).toBe('banned');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
