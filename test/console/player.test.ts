import type { Page } from 'playwright-core';
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
 * The player page (/admin/users/:id) in Chromium, against the real service on the demo data: the
 * header's figures, one timeline from every list that filters by user, the account actions' menu
 * and the grant of credits, as a support agent, billing staff or the owner sees them.
 */

const SLOW = 180_000;
const STEPS = 60_000;

describe('the staff console: the player page', () => {
  let service: ConsoleService;

  beforeAll(async () => {
    service = await startConsoleService();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const api = async (role: string, url: string) => {
    const answer = await service.t.request({ method: 'GET', url, token: await service.tokenFor(role) });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json();
  };

  /** A demo player with a live subscription, a payment and an open ticket: the richest page. */
  async function busyPlayer() {
    const row = await service.t.db
      .selectFrom('users')
      .innerJoin('billing_subscriptions', 'billing_subscriptions.user_id', 'users.id')
      .innerJoin('support_tickets', 'support_tickets.user_id', 'users.id')
      .select(['users.id', 'users.email', 'users.display_name'])
      .where('users.status', '=', 'active')
      .where('support_tickets.status', '=', 'open')
      .where('billing_subscriptions.status', 'in', ['active', 'trialing'])
      .orderBy('users.email')
      .executeTakeFirstOrThrow();
    return { ...row, email: row.email ?? '' };
  }

  const open = async (role: string, userId: string, size: 'desktop' | 'phone' = 'desktop') => {
    const window = await service.window(size);
    // A missing element fails its step, named, well within the test's time.
    window.page.setDefaultTimeout(8_000);
    await signInWithToken(window.page, service.origin, await service.tokenFor(role), `/admin/users/${userId}`);
    await window.page.getByRole('heading', { name: 'Timeline', level: 2 }).waitFor();
    return window;
  };

  const timeline = (page: Page) => page.getByRole('list', { name: 'What happened, newest first' });

  it(
    "the header's figures are the API's: status, tier, credits, subscription, open tickets, last session",
    async () => {
      const player = await busyPlayer();
      const profile = await api('owner', `/v1/admin/users/${player.id}`);
      const openTickets = await api('owner', `/v1/admin/support/tickets?user_id=${player.id}&status=open`);
      const sessions = await api('owner', `/v1/admin/users/${player.id}/sessions`);
      const { page, context } = await open('owner', player.id);
      const header = page.locator('header.player-header');

      await header.getByRole('heading', { name: player.display_name ?? player.email, level: 1 }).waitFor();
      await expect(header.locator('.status').textContent()).resolves.toBe(profile.status);
      await expect(header.getByTestId('credit-balance').textContent()).resolves.toBe(String(profile.credit_balance));
      await expect(header.getByTestId('open-tickets').textContent()).resolves.toBe(String(openTickets.meta.total));
      const tier = profile.tier_detail?.name ?? profile.tier ?? 'none';
      await header.getByText(tier, { exact: true }).waitFor();
      // The subscription, named by its plan and linked to the billing list of this player.
      const subscription = header.getByRole('link', { name: new RegExp(`· ${profile.subscription.status}`) });
      await expect(subscription.getAttribute('href')).resolves.toBe(
        `/admin/billing/subscriptions?user_id=${player.id}`,
      );
      // Each open ticket is a link to its own page.
      const ticket = openTickets.data[0];
      await expect(header.getByRole('link', { name: ticket.subject }).getAttribute('href')).resolves.toBe(
        `/admin/support/tickets/${ticket.id}`,
      );
      const lastSeen = sessions.data.length === 0 ? null : sessions.data[0].last_seen_at;
      if (lastSeen === null) await header.getByText('never signed in').waitFor();
      else
        await expect(header.getByTestId('last-login').locator('time').getAttribute('datetime')).resolves.toBe(
          new Date(
            Math.max(...sessions.data.map((session: { last_seen_at: string }) => Date.parse(session.last_seen_at))),
          ).toISOString(),
        );
      await header.getByText('not banned').waitFor();

      // The timeline holds each kind: a payment links to the billing list filtered by the player.
      const payment = timeline(page)
        .getByRole('link', { name: /^Paid / })
        .first();
      await expect(payment.getAttribute('href')).resolves.toBe(`/admin/billing/payments?user_id=${player.id}`);
      await timeline(page).getByText('Support tickets').first().waitFor();

      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'player');
      // Nothing wider than a phone: at 390 px the page does not scroll sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );

  it(
    'a grant of credits needs its confirmation, which says what will happen; the timeline then shows it',
    async () => {
      const player = (await service.players())[0]!;
      const billing = staffWithRole('demo-billing');
      const before = await api('demo-billing', `/v1/admin/users/${player.id}`);
      const { page, context } = await open('demo-billing', player.id);
      const reason = 'Goodwill gesture: Lag in the Friday tournament';
      const stored = () =>
        service.t.db
          .selectFrom('credit_ledger')
          .select(['amount', 'kind', 'actor_id', 'reason'])
          .where('user_id', '=', player.id)
          .where('reason', '=', reason)
          .execute();

      await page.getByRole('spinbutton', { name: 'Credits' }).fill('500');
      await page.getByRole('button', { name: /Reason$/ }).click();
      await page.getByRole('option', { name: 'Goodwill gesture' }).click();
      await page.getByLabel('Details (optional)').fill('Lag in the Friday tournament');
      await page.getByRole('button', { name: 'Grant credits…' }).click();

      // The form alone grants nothing: a confirmation names the amount and the player.
      const dialog = page.getByRole('dialog', { name: `Grant 500 credits to ${player.email}?` });
      await dialog.waitFor();
      await dialog.getByText(`goes from ${before.credit_balance} to ${before.credit_balance + 500} credits`).waitFor();
      await dialog.getByText(`“${reason}”`).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await stored()).toEqual([]);

      await page.getByRole('button', { name: 'Grant credits…' }).click();
      await dialog.getByRole('button', { name: 'Grant 500 credits' }).click();
      await page.getByText(`500 credits granted; balance ${before.credit_balance + 500}`).waitFor();
      expect(await stored()).toEqual([{ amount: 500, kind: 'grant', actor_id: billing.id, reason }]);

      // Newest first, named: the grant tops the timeline with who made it, and the header's balance moved.
      const first = timeline(page).getByRole('listitem').first();
      await first.getByText('+500 credits (grant)').waitFor();
      await expect(first.getByRole('link', { name: billing.displayName }).getAttribute('href')).resolves.toBe(
        `/admin/users/${billing.id}`,
      );
      const after = await api('demo-billing', `/v1/admin/users/${player.id}`);
      expect(after.credit_balance).toBe(before.credit_balance + 500);
      await expect(page.getByTestId('credit-balance').textContent()).resolves.toBe(String(after.credit_balance));
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );

  it(
    'filters the timeline by kind, kept in the address',
    async () => {
      const player = await busyPlayer();
      const ledger = await api('owner', `/v1/admin/billing/ledger?user_id=${player.id}&per_page=25`);
      const { page, context } = await open('owner', player.id);
      await timeline(page).getByRole('listitem').first().waitFor();
      await page.getByRole('button', { name: /Show$/ }).click();
      await page.getByRole('option', { name: 'Credits' }).click();
      await page.waitForURL(/kind=credits/);
      const items = timeline(page).getByRole('listitem');
      await expect.poll(() => items.count()).toBe(Math.min(ledger.meta.total, 25));
      await expect(items.locator('.happening-kind').allTextContents()).resolves.toEqual(
        Array(await items.count()).fill('Credits'),
      );

      await page.getByRole('button', { name: /Show$/ }).click();
      await page.getByRole('option', { name: 'Support tickets' }).click();
      await page.waitForURL(/kind=tickets/);
      const tickets = await api('owner', `/v1/admin/support/tickets?user_id=${player.id}`);
      await expect.poll(() => items.count()).toBe(tickets.meta.total);
      await expect(items.first().getByRole('link').getAttribute('href')).resolves.toMatch(
        /^\/admin\/support\/tickets\//,
      );
      // A reload shows the same filter.
      await page.reload();
      await expect.poll(() => timeline(page).getByRole('listitem').count()).toBe(tickets.meta.total);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );

  it(
    'a long history shows its newest entries, merged without gaps, and reads older ones on demand',
    async () => {
      const player = (await service.players())[2]!;
      const token = await service.tokenFor('owner');
      for (let n = 1; n <= 30; n += 1) {
        const answer = await service.t.request({
          method: 'POST',
          url: '/v1/admin/billing/credits/grant',
          token,
          payload: { user_id: player.id, amount: n, reason: `Daily streak day ${n}` },
        });
        expect(answer.statusCode, answer.body).toBe(201);
      }
      const ledger = await api('owner', `/v1/admin/billing/ledger?user_id=${player.id}&per_page=100`);
      expect(ledger.meta.total).toBeGreaterThan(30);
      const { page, context } = await open('owner', player.id);
      const items = timeline(page).getByRole('listitem');
      await timeline(page).getByText('Daily streak day 30', { exact: false }).waitFor();
      // 25 ledger entries read: nothing older than the 25th is shown, or another source would fill a gap.
      await expect.poll(() => items.filter({ hasText: 'Daily streak day' }).count()).toBe(25);
      await expect(items.filter({ hasText: 'Welcome credits' }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Show older' }).click();
      await items.filter({ hasText: 'Welcome credits' }).waitFor();
      await expect(items.filter({ hasText: 'Daily streak day' }).count()).resolves.toBe(30);
      await expect(page.getByRole('button', { name: 'Show older' }).count()).resolves.toBe(0);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );

  it(
    'bans from the account actions menu, through a confirmation saying what is lost',
    async () => {
      const player = (await service.players())[1]!;
      const owner = staffWithRole('owner');
      const { page, context } = await open('owner', player.id);
      // No row of red buttons: the rare actions are behind one menu.
      await expect(page.getByRole('button', { name: 'Ban…' }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: /Account actions/ }).click();
      const menu = page.getByRole('menu');
      await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual([
        'Ban…',
        'Sign out everywhere…',
        'Delete…',
        'Delete for good…',
      ]);
      expect(await seriousViolations(page)).toEqual([]);
      await menu.getByRole('menuitem', { name: 'Ban…' }).click();
      const dialog = page.getByRole('alertdialog', { name: `Ban ${player.email}?` });
      await dialog.getByText('cannot sign in or use the platform until unbanned').waitFor();
      await dialog.getByLabel('Reason').fill('Abusive chat in three matches');
      await dialog.getByRole('button', { name: 'Ban' }).click();
      await page.getByText(`${player.email} is banned`).waitFor();

      const stored = await api('owner', `/v1/admin/users/${player.id}`);
      expect(stored).toMatchObject({ status: 'banned', status_reason: 'Abusive chat in three matches' });
      const header = page.locator('header.player-header');
      await header.locator('.status', { hasText: 'banned' }).waitFor();
      await header.getByText('“Abusive chat in three matches”').waitFor();
      await header.getByRole('link', { name: owner.displayName }).waitFor();
      const first = timeline(page).getByRole('listitem').first();
      await first.getByText('Banned').waitFor();
      await first.getByRole('link', { name: owner.displayName }).waitFor();
      // The menu now offers the way back.
      await page.getByRole('button', { name: /Account actions/ }).click();
      await page.getByRole('menuitem', { name: 'Unban…' }).waitFor();
      await page.keyboard.press('Escape');
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );

  it(
    'a support agent (billing.grant, no billing.read) sees no billing history, asks for none, and sees no error',
    async () => {
      const player = await busyPlayer();
      const asked: string[] = [];
      const { page, context } = await service.window();
      page.setDefaultTimeout(8_000);
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      await signInWithToken(
        page,
        service.origin,
        await service.tokenFor('demo-support-agent'),
        `/admin/users/${player.id}`,
      );
      await page.getByRole('heading', { name: 'Timeline', level: 2 }).waitFor();
      await timeline(page).getByText('Support tickets').first().waitFor();
      const header = page.locator('header.player-header');
      await header.getByTestId('open-tickets').waitFor();
      await expect(header.getByText('Credits', { exact: true }).count()).resolves.toBe(0);
      await expect(header.getByText('Subscription', { exact: true }).count()).resolves.toBe(0);
      // billing.grant (compensation) without billing.read: the grant, and no billing history.
      await page.getByRole('heading', { name: 'Grant credits' }).waitFor();
      await expect(
        timeline(page)
          .getByRole('link', { name: /^Paid / })
          .count(),
      ).resolves.toBe(0);
      await page.getByRole('button', { name: /Show$/ }).click();
      await expect(page.getByRole('option').allTextContents()).resolves.toEqual([
        'Everything',
        'Account',
        'Support tickets',
        'Sign-ins',
      ]);
      await page.keyboard.press('Escape');
      // The actions they may not take are listed, disabled, naming the permission.
      await page.getByRole('button', { name: /Account actions/ }).click();
      const ban = page.getByRole('menuitem', { name: /Ban…/ });
      await expect(ban.getAttribute('aria-disabled')).resolves.toBe('true');
      await ban.getByText('needs users.write').waitFor();
      await page.keyboard.press('Escape');

      expect(asked.filter((path) => path.startsWith('/v1/admin/billing') || path === '/v1/admin/audit')).toEqual([]);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    STEPS,
  );
  it(
    "edits a player's display name and metadata with a reason, and shows the identity provider's answer",
    async () => {
      const player = (await service.players())[11]!;
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, await service.tokenFor('owner'), `/admin/users/${player.id}`);
      // The embedded provider keeps no record of its own: said in words, not as a failure.
      await page.getByText('The identity provider holds no record of this player').waitFor();
      await page.getByRole('button', { name: 'Edit profile…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Display name').fill('Renamed by support');
      await dialog.getByLabel('Metadata (JSON object)').fill('{"vip": true');
      await expect(dialog.getByRole('button', { name: 'Save profile' }).isDisabled()).resolves.toBe(true);
      await dialog.getByLabel('Metadata (JSON object)').fill('{"vip": true}');
      await dialog.getByLabel('Reason').fill('Asked by the player on a ticket');
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Profile saved').waitFor();
      const stored = await service.t.request({
        method: 'GET',
        url: `/v1/admin/users/${player.id}`,
        token: await service.tokenFor('owner'),
      });
      expect(stored.json()).toMatchObject({ display_name: 'Renamed by support', metadata: { vip: true } });
      const audit = await service.t.request({
        method: 'GET',
        url: `/v1/admin/audit?target_id=${player.id}&per_page=5`,
        token: await service.tokenFor('owner'),
      });
      expect(audit.json().data[0]).toMatchObject({ reason: 'Asked by the player on a ticket' });
      await context.close();
    },
    STEPS,
  );
});
