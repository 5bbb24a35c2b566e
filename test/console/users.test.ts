import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PLAYER_COUNT } from '../../src/cli/seed/demo.js';
import { signToken } from '../helpers/tokens.js';
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
 * The console's Home and Users screens in Chromium, against the real service on the demo data:
 * what a staff member does, what it stores, and an accessibility check and screenshots of each.
 */

const SLOW = 180_000;

describe('the staff console: Home and Users', () => {
  let service: ConsoleService;

  beforeAll(async () => {
    service = await startConsoleService();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  async function playerByEmail(email: string) {
    return service.t.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  }

  it('signs the owner in, shows Home with the headline counts and the live feed, and passes axe', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link', { name: 'Users' }).isVisible()).resolves.toBe(true);
    // Counts by status from the users list's totals: 50 players and 8 staff, two players banned.
    await page.getByRole('link', { name: /\d+ banned/ }).waitFor();
    await expect(page.getByRole('link', { name: /\d+ banned/ }).textContent()).resolves.toMatch(/^2\s*banned$/);
    await page.getByText('Connected: staff actions appear here').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'home');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('keeps rarer filters behind "More filters", and in sight whenever the address sets one', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/users');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const more = page.getByRole('button', { name: 'More filters' });
    await expect(more.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByLabel('Tier key').count()).resolves.toBe(0);
    await more.click();
    await page.getByLabel('Tier key').fill('pro');
    // Set, the filter stays in sight (the toggle goes) and the address holds it.
    await page.waitForURL(/tier=pro/);
    await expect(page.getByRole('button', { name: /filters$/ }).count()).resolves.toBe(0);
    await page.goto(`${service.origin}/admin/billing/payments?created_from=2026-01-01T00%3A00`);
    await expect(page.getByLabel('Paid from').inputValue()).resolves.toBe('2026-01-01T00:00');
    await expect(page.getByRole('button', { name: /filters$/ }).count()).resolves.toBe(0);
    await context.close();
  });

  it('finds a player by email, bans them with a reason, and the ban is stored and audited', async () => {
    const player = await playerByEmail('ana.silva.demo@example.com');
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/users');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByLabel('Search email or name').fill('ana.silva.demo');
    await page.getByLabel('Search email or name').press('Enter');
    const row = page.getByRole('row', { name: /ana\.silva\.demo@example\.com/ });
    await row.waitFor();
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'users');
    await row.getByRole('rowheader').click();

    await page.getByRole('heading', { name: 'Ana Silva', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'user');
    await page.getByRole('button', { name: /Account actions/ }).click();
    await page.getByRole('menuitem', { name: 'Ban…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Reason').fill('Chargeback fraud on three purchases');
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Ban' }).click();
    await page.getByText('ana.silva.demo@example.com is banned').waitFor();
    await page.locator('header .status', { hasText: 'banned' }).waitFor();

    const stored = await playerByEmail('ana.silva.demo@example.com');
    expect(stored.status).toBe('banned');
    const audit = await service.t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'users.ban')
      .where('target_id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actor_id: staffWithRole('owner').id, reason: 'Chargeback fraud on three purchases' });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  }, 60_000);

  it('a too-short reason is refused in the form, before any call, from the bounds the API publishes', async () => {
    const player = (await service.players())[1]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), `/admin/users/${player.id}`);
    await page.getByRole('button', { name: /Account actions/ }).click();
    await page.getByRole('menuitem', { name: 'Ban…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Reason').fill('no');
    await dialog.getByRole('button', { name: 'Ban' }).click();
    // The browser's own check of minlength=3 (REQUEST_FIELDS): the dialog stays, nothing is sent.
    const tooShort = await dialog
      .getByLabel('Reason')
      .evaluate((input) => (input as unknown as { validity: { tooShort: boolean } }).validity.tooShort);
    expect(tooShort).toBe(true);
    expect((await playerByEmail(player.email)).status).toBe('active');
    await context.close();
  });

  it('grants a role with an expiry from the user page, and the player then holds its permissions', async () => {
    const player = (await service.players())[2]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), `/admin/users/${player.id}`);
    await page.getByRole('heading', { name: 'Roles', level: 2 }).waitFor();
    await page.getByRole('button', { name: /Role to grant/ }).click();
    await page.getByRole('option', { name: 'Marketing' }).click();
    await page.getByLabel('Expires (optional)').fill('2030-01-31T18:00');
    await page.getByRole('button', { name: 'Grant…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Reason').fill('Covering the newsletter in January');
    await dialog.getByRole('button', { name: 'Grant' }).click();
    await page.getByText('Role demo-marketing granted').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'demo-marketing' }).getByText(/until/).waitFor();

    const permissions = await service.t.request({
      method: 'GET',
      url: '/v1/me/permissions',
      token: await signToken({ sub: player.id, email: player.email ?? undefined }),
    });
    expect(permissions.json().permissions).toContain('email.send');
    const grant = await service.t.db
      .selectFrom('user_roles')
      .innerJoin('roles', 'roles.id', 'user_roles.role_id')
      .select(['user_roles.expires_at', 'user_roles.reason'])
      .where('user_roles.user_id', '=', player.id)
      .where('roles.key', '=', 'demo-marketing')
      .executeTakeFirstOrThrow();
    // 18:00 in Berlin (the window's time zone) is 17:00 UTC in January.
    expect(new Date(grant.expires_at as unknown as string).toISOString()).toBe('2030-01-31T17:00:00.000Z');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('a support agent sees only their areas; actions they may not take are disabled and name the permission', async () => {
    const player = (await service.players())[3]!;
    const { page, context } = await service.window();
    await signInWithToken(
      page,
      service.origin,
      await service.tokenFor('demo-support-agent'),
      `/admin/users/${player.id}`,
    );
    await page.getByRole('heading', { name: 'Timeline', level: 2 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual(['Home', 'Users', 'Support']);
    await page.getByText('Granting roles needs roles.assign.').waitFor();
    // billing.grant without billing.read: credits to grant (compensation), no billing history.
    await page.getByRole('heading', { name: 'Grant credits' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /Account actions/ }).click();
    const ban = page.getByRole('menuitem', { name: /Ban…/ });
    await expect(ban.getAttribute('aria-disabled')).resolves.toBe('true');
    await ban.getByText('needs users.write').waitFor();
    await context.close();
  });

  it('grants credits, signs a user out everywhere, deletes, restores, and deletes for good', {
    timeout: 60_000,
  }, async () => {
    const player = (await service.players())[6]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), `/admin/users/${player.id}`);
    await page.getByRole('heading', { name: 'Grant credits', level: 2 }).waitFor();
    await page.getByRole('spinbutton', { name: 'Credits' }).fill('75');
    await page.getByRole('button', { name: /Reason$/ }).click();
    await page.getByRole('option', { name: 'Other (write the reason)' }).click();
    await page.getByLabel('Written reason').fill('Sorry for the outage on Friday');
    await page.getByRole('button', { name: 'Grant credits…' }).click();
    await page.getByRole('dialog', { name: `Grant 75 credits to ${player.email}?` }).waitFor();
    await page.getByRole('button', { name: 'Grant 75 credits' }).click();
    await page.getByText(/^75 credits granted/).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: 'Sorry for the outage on Friday' })
      .getByText(/\+75 credits/)
      .waitFor();
    const ledger = await service.t.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('user_id', '=', player.id)
      .where('reason', '=', 'Sorry for the outage on Friday')
      .executeTakeFirstOrThrow();
    expect(ledger).toMatchObject({ amount: 75, kind: 'grant' });

    const action = async (name: string) => {
      await page.getByRole('button', { name: /Account actions/ }).click();
      await page.getByRole('menuitem', { name }).click();
    };
    await action('Sign out everywhere…');
    // Not destructive (they can sign in again): a plain dialog, its button not red.
    await page.getByRole('dialog').getByLabel('Reason').fill('Account shared with a stranger');
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await page.getByText(`${player.email} is signed out everywhere`).waitFor();

    await action('Delete…');
    await page.getByRole('alertdialog').getByLabel('Reason').fill('Asked to close the account');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`${player.email} is deleted`).waitFor();
    // Restore undoes a staff deletion too, within its grace period.
    await action('Restore…');
    await page.getByRole('dialog').getByLabel('Reason').fill('Deleted the wrong account');
    await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click();
    await page.getByText(`${player.email} is restored`).waitFor();
    expect((await playerByEmail(player.email)).status).toBe('active');
    await page.locator('header .status', { hasText: 'active' }).waitFor();

    await action('Delete for good…');
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('This cannot be undone').waitFor();
    await dialog.getByLabel('Reason').fill('Erasure request under GDPR art. 17');
    // The typed confirmation holds the button until the word is typed exactly.
    await expect(dialog.getByRole('button', { name: 'Delete for good' }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const gone = await service.t.db.selectFrom('users').select('id').where('id', '=', player.id).executeTakeFirst();
    expect(gone).toBeUndefined();
    const audited = await service.t.db
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', player.id)
      .orderBy('created_at')
      .execute();
    expect(audited.map((row) => row.action)).toEqual(
      expect.arrayContaining(['users.sign_out', 'users.soft_delete', 'users.restore', 'users.hard_delete']),
    );
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('a list refreshes itself when a dashboard event says its data changed', async () => {
    const player = (await service.players())[4]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/users?status=banned');
    await page.getByRole('row').filter({ hasText: 'banned' }).first().waitFor();
    await expect(page.getByRole('row').filter({ hasText: player.email }).count()).resolves.toBe(0);
    // Another staff member bans the player elsewhere: the users.banned event reaches this page.
    const answer = await service.t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/ban`,
      token: await service.tokenFor('demo-admin'),
      payload: { reason: 'Banned from another desk' },
    });
    expect(answer.statusCode, answer.body).toBe(204);
    await page.getByRole('row').filter({ hasText: player.email }).waitFor({ timeout: 3_000 });
    await context.close();
  });

  it('works with the keyboard alone: to a user from the area links, the search and the table', {
    timeout: 60_000,
  }, async () => {
    const player = (await service.players())[5]!;
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    // Signing in navigated here, so the new screen's heading holds focus; the sidebar's areas come
    // before it: Shift+Tab back to Users and follow it.
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Home');
    for (let step = 0; step < 20; step += 1) {
      await page.keyboard.press('Shift+Tab');
      if ((await page.evaluate('document.activeElement.textContent')) === 'Users') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    for (let step = 0; step < 10; step += 1) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement.getAttribute("placeholder")')) === 'Press Enter to search')
        break;
    }
    await page.keyboard.type(player.email);
    await page.keyboard.press('Enter');
    // The unfiltered list may hold the player too: wait for the search's answer, not the row.
    await expect.poll(() => page.getByRole('row').count(), { timeout: 10_000 }).toBe(2);
    await page.getByRole('row').filter({ hasText: player.email }).waitFor();
    // Into the table: its rows take the arrow keys, and Enter opens the user.
    for (let step = 0; step < 12; step += 1) {
      await page.keyboard.press('Tab');
      const role = await page.evaluate('document.activeElement.getAttribute("role")');
      if (role === 'row' || role === 'gridcell' || role === 'rowheader' || role === 'columnheader') break;
    }
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: player.display_name ?? player.email, level: 1 }).waitFor();
    await context.close();
  });

  it('an ended session returns to sign-in, and signing in again returns to the same page', async () => {
    const { page, context } = await service.window();
    const staff = staffWithRole('owner');
    const shortLived = await signToken({ sub: staff.id, email: staff.email, expiresIn: 18 });
    await signInWithToken(page, service.origin, shortLived, '/admin/users?status=banned');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    // The console treats a token within 10 s of its end as ended: this one, 8 s after it was made.
    await page.waitForURL(/\/admin\/sign-in\?next=/, { timeout: 15_000 });
    expect(new URL(page.url()).searchParams.get('next')).toBe('/users?status=banned');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'sign-in');
    await page.getByLabel('Access token').fill(await service.tokenFor('owner'));
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.waitForURL(/\/admin\/users\?status=banned$/);
    await page.getByRole('row').filter({ hasText: 'banned' }).first().waitFor();
    await context.close();
  }, 40_000);

  it('grants a role to a selection of users at once and shows the result of each', async () => {
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, await service.tokenFor('owner'), '/admin/users?q=demo%40example.com');
    await page.getByRole('row').nth(3).waitFor();
    const rows = page.getByRole('row');
    // What a person clicks: the drawn box, inside the checkbox's label.
    await rows.nth(1).locator('label.checkbox').click();
    await rows.nth(2).locator('label.checkbox').click();
    const bar = page.getByRole('region', { name: 'Selected users' });
    await bar.getByText('2 selected').waitFor();
    await bar.getByRole('button', { name: /Role/ }).first().click();
    await page.getByRole('option', { name: 'Support agent' }).click();
    await bar.getByRole('button', { name: 'Grant role…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Grant' }).click();
    await page.getByText('Results of the last bulk change').waitFor();
    await expect(
      page
        .getByRole('listitem')
        .filter({ hasText: /: done$/ })
        .count(),
    ).resolves.toBe(2);
    expect(DEMO_PLAYER_COUNT).toBeGreaterThan(2);
    await context.close();
  });
});
