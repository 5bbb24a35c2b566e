import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  staffWithRole,
  startConsoleService,
} from './harness.js';

/**
 * The console's shell in Chromium: the maintenance banner every staff member sees, the command
 * palette, focus on the new screen's heading after a navigation, and the menu on a phone.
 */

const SLOW = 180_000;

describe('the staff console: the shell', () => {
  let service: ConsoleService;

  beforeAll(async () => {
    service = await startConsoleService();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  it('a support agent sees the maintenance level an owner set, with who set it, since when and why', async () => {
    const owner = staffWithRole('owner');
    const set = await service.t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: await service.tokenFor('owner'),
      payload: { level: 'degraded', reason: 'Payment provider outage: checkout paused' },
    });
    expect(set.statusCode).toBe(200);
    try {
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, await service.tokenFor('demo-support-agent'));
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
      const banner = page.getByTestId('maintenance-banner');
      await banner.waitFor();
      const text = await banner.textContent();
      expect(text).toContain('Maintenance: degraded');
      expect(text).toContain(`Set by ${owner.displayName}`);
      expect(text).toContain('“Payment provider outage: checkout paused”');
      expect(text).toMatch(/since .*20\d\d/);
      // The agent may not change it: no Operations area.
      const nav = page.getByRole('navigation', { name: 'Areas' });
      await expect(nav.getByRole('link', { name: 'Operations' }).count()).resolves.toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'shell-maintenance-banner');
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    } finally {
      await service.t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: await service.tokenFor('owner'),
        payload: { level: 'off', reason: 'Provider recovered' },
      });
    }
  });

  it('the banner comes on live for a support agent: the socket brings the change, no reload, no poll', async () => {
    const { page, context } = await service.window();
    const levels: string[] = [];
    const socketReady = new Promise<void>((resolve) => {
      page.on('websocket', (socket) =>
        socket.on('framereceived', ({ payload }) => {
          const frame = JSON.parse(String(payload)) as { type: string; name?: string; payload?: { level?: string } };
          if (frame.type === 'subscribed') resolve();
          if (frame.name === 'ops.panic_changed') levels.push(frame.payload?.level ?? '');
        }),
      );
    });
    await signInWithToken(page, service.origin, await service.tokenFor('demo-support-agent'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await socketReady;
    await expect(page.getByTestId('maintenance-banner').count()).resolves.toBe(0);
    const owner = await service.tokenFor('owner');
    const set = (level: string, reason: string) =>
      service.t.request({ method: 'POST', url: '/v1/admin/ops/panic', token: owner, payload: { level, reason } });
    expect((await set('lockdown', 'Database failover in progress')).statusCode).toBe(200);
    try {
      // Well inside the banner's 60 s poll: only the socket can have brought it.
      await page.getByTestId('maintenance-banner').getByText('Maintenance: lockdown').waitFor({ timeout: 15_000 });
      await page.getByText('“Database failover in progress”').waitFor();
      expect(levels).toContain('lockdown');
    } finally {
      await set('off', 'Failover done');
    }
    await page.getByTestId('maintenance-banner').waitFor({ state: 'detached', timeout: 15_000 });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('the palette finds a player by email as one types (no Enter) and opens their page', async () => {
    const player = (await service.players())[2]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('demo-support-agent'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog');
    const search = dialog.getByRole('searchbox', { name: 'Email, id or screen' });
    await search.waitFor();
    // Typed a key at a time, as a person types: results come without pressing Enter.
    await search.pressSequentially(player.email.slice(0, -4), { delay: 30 });
    const option = dialog.getByRole('menuitem', { name: new RegExp(player.email.replace(/[.]/g, '\\.')) });
    await option.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'shell-palette');
    await option.click();
    await page.waitForURL(`**/admin/users/${player.id}`);
    const heading = page.getByRole('heading', { name: player.display_name ?? player.email, level: 1 });
    await heading.waitFor();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');

    // A screen by name, and the palette's button for touch.
    await page.getByRole('button', { name: /Go to/ }).click();
    await page.getByRole('dialog').getByRole('searchbox').fill('users');
    await page
      .getByRole('dialog')
      .getByRole('menuitem', { name: /Screen.*Users/ })
      .waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.waitForURL(/\/admin\/users$/);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('after clicking an area link, focus is on the new screen’s heading, and the change is announced', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await expect
      .poll(() => page.evaluate("document.activeElement?.tagName + ' ' + document.activeElement?.textContent"))
      .toBe('H1 Roles');
    await page.getByText('Roles page', { exact: true }).waitFor({ state: 'attached' });

    // And again to a screen that loads its record first.
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Users');
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('not on the first load: a page opened directly leaves focus where the browser puts it', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/roles');
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.waitForTimeout(300);
    await expect(page.evaluate('document.activeElement?.tagName')).resolves.toBe('BODY');
    await context.close();
  });

  it('on a phone the areas sit behind a menu button', async () => {
    const { page, context } = await service.window('phone');
    await signInWithToken(page, service.origin, await service.tokenFor('owner'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.isVisible()).resolves.toBe(false);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await nav.getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await expect(nav.isVisible()).resolves.toBe(false);
    await expect(page.getByRole('button', { name: /Go to/ }).isVisible()).resolves.toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/console/shell-phone-menu.png' });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
