import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/app.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  startConsoleService,
} from './harness.js';

/**
 * The console's Billing screens in Chromium, as the demo billing staff member, against the real
 * service on the demo data and the embedded local payment provider: what they do, what it stores
 * (read back through the API), an accessibility check and screenshots of each screen.
 */

const SLOW = 180_000;

describe('the staff console: Billing', () => {
  let service: ConsoleService;
  let billingToken: string;

  beforeAll(async () => {
    service = await startConsoleService();
    billingToken = await service.tokenFor('demo-billing');
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const apiGet = async (url: string) => {
    const answer = await service.t.request({ method: 'GET', url, token: billingToken });
    expect(answer.statusCode).toBe(200);
    return answer.json();
  };

  it(
    'refunds part of a credit pack once, even after a lost answer and a second click, and shows the clawback',
    async () => {
      const payment = await service.t.db
        .selectFrom('billing_payments')
        .innerJoin('users', 'users.id', 'billing_payments.user_id')
        .select(['billing_payments.id', 'billing_payments.user_id', 'billing_payments.amount', 'users.email'])
        .where('billing_payments.kind', '=', 'credit_pack')
        .where('billing_payments.status', '=', 'succeeded')
        .orderBy('billing_payments.created_at')
        .executeTakeFirstOrThrow();
      const amount = Number(payment.amount);
      const half = Math.floor(amount / 2);
      const { page, context } = await service.window();
      await signInWithToken(
        page,
        service.origin,
        billingToken,
        `/admin/billing/payments?user_id=${payment.user_id}&kind=credit_pack`,
      );
      await page.getByRole('heading', { name: 'Payments', level: 2 }).waitFor();
      const row = page
        .getByRole('row')
        .filter({ hasText: payment.email ?? '' })
        .first();
      await row.getByRole('link', { name: payment.email ?? '' }).waitFor();
      await expect(row.getByRole('link', { name: payment.email ?? '' }).getAttribute('href')).resolves.toBe(
        `/admin/users/${payment.user_id}`,
      );
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'billing-payments');
      // The player's customer record at the (local) payment provider.
      await page.getByRole('button', { name: 'Customer at the provider…' }).click();
      const record = page.getByRole('dialog');
      await record.getByText(/The local payment provider \(development\) holds/).waitFor();
      await record.getByText(payment.user_id).first().waitFor();
      await record.getByRole('button', { name: 'Close' }).click();

      // The first answer is lost on the way back (the service has refunded); the dialog stays open.
      let refundCalls = 0;
      const keys: string[] = [];
      await page.route('**/v1/admin/billing/payments/*/refund', async (route) => {
        refundCalls += 1;
        keys.push(route.request().headers()['idempotency-key'] ?? '');
        if (refundCalls === 1) {
          await route.fetch();
          await route.abort('failed');
        } else await route.continue();
      });
      await row.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByText(/cannot be taken again/).waitFor();
      await dialog.getByLabel(/Amount/).fill((half / 100).toFixed(2));
      await dialog.getByLabel('Reason').fill('Bought the wrong pack by mistake');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'billing-refund');
      await dialog.getByRole('button', { name: /^Refund / }).click();
      await page.getByText('Could not refund the payment').first().waitFor();
      // The retry: a double click on the same dialog.
      await dialog.getByRole('button', { name: /^Refund / }).dblclick();
      await page
        .getByText(/^Refunded .* to /)
        .first()
        .waitFor();
      await row.getByRole('link', { name: 'See the player’s ledger' }).waitFor();
      expect(new Set(keys).size).toBe(1);
      expect(refundCalls).toBeGreaterThanOrEqual(2);

      const refunds = await service.t.db
        .selectFrom('billing_refunds')
        .select(['amount', 'credits_clawed_back', 'reason'])
        .where('payment_id', '=', payment.id)
        .execute();
      expect(refunds).toHaveLength(1);
      expect(Number(refunds[0]!.amount)).toBe(half);
      const listed = await apiGet(`/v1/admin/billing/payments?user_id=${payment.user_id}&kind=credit_pack`);
      const stored = listed.data.find((each: { id: string }) => each.id === payment.id);
      expect(stored).toMatchObject({ amount_refunded: half, status: 'partially_refunded' });
      const ledger = await apiGet(`/v1/admin/billing/ledger?user_id=${payment.user_id}&kind=refund_clawback`);
      expect(ledger.data).toHaveLength(1);
      expect(ledger.data[0].amount).toBe(-refunds[0]!.credits_clawed_back);

      await page.unroute('**/v1/admin/billing/payments/*/refund');
      await row.getByRole('link', { name: 'See the player’s ledger' }).click();
      await page.getByRole('heading', { name: 'Credits', level: 2 }).waitFor();
      const clawback = page.getByRole('row').filter({ hasText: 'refund_clawback' }).first();
      await clawback.getByText(`-${refunds[0]!.credits_clawed_back}`).waitFor();
      // The entry leads back to the player's payments, where the refund shows.
      await clawback.getByRole('link', { name: 'a payment' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 2 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'Partly refunded' }).first().waitFor();
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'cancels a subscription at period end and resumes it, each stored',
    async () => {
      const subscription = await service.t.db
        .selectFrom('billing_subscriptions')
        .select(['id', 'user_id'])
        .where('status', '=', 'active')
        .where('cancel_at_period_end', '=', false)
        .orderBy('created_at')
        .executeTakeFirstOrThrow();
      const { page, context } = await service.window();
      await signInWithToken(
        page,
        service.origin,
        billingToken,
        `/admin/billing/subscriptions?user_id=${subscription.user_id}`,
      );
      await page.getByRole('heading', { name: 'Subscriptions', level: 2 }).waitFor();
      await page.getByRole('button', { name: 'Cancel at period end…' }).first().click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByText(/then it ends instead of renewing/).waitFor();
      await dialog.getByLabel('Reason').fill('Player asked to stop renewing');
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel at period end' }).click();
      await page
        .getByText(/ends on /)
        .first()
        .waitFor();
      await page.getByRole('button', { name: 'Resume…' }).first().waitFor();
      const stored = async () => {
        const listed = await apiGet(`/v1/admin/billing/subscriptions?user_id=${subscription.user_id}`);
        return listed.data.find((each: { id: string }) => each.id === subscription.id);
      };
      await expect(stored()).resolves.toMatchObject({ status: 'active', cancel_at_period_end: true });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'billing-subscriptions');

      await page.getByRole('button', { name: 'Resume…' }).first().click();
      await dialog.getByLabel('Reason').fill('Player changed their mind');
      await dialog.getByRole('button', { name: 'Resume' }).click();
      await page
        .getByText(/renews again/)
        .first()
        .waitFor();
      await page.getByRole('button', { name: 'Cancel at period end…' }).first().waitFor();
      await expect(stored()).resolves.toMatchObject({ status: 'active', cancel_at_period_end: false });
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows the overview with the figures the API gives, and every billing screen passes axe',
    async () => {
      const { page, context } = await service.window();
      const answered = page.waitForResponse((response) => response.url().includes('/v1/admin/billing/overview'));
      await signInWithToken(page, service.origin, billingToken, '/admin/billing');
      const request = new URL((await answered).url());
      await page.getByRole('heading', { name: 'Overview', level: 2 }).waitFor();
      const overview = await apiGet(`${request.pathname}${request.search}`);
      const subscriptions = page.getByRole('region', { name: 'Active subscriptions' });
      await expect(subscriptions.locator('.billing-figure').textContent()).resolves.toBe(
        String(overview.subscriptions.live),
      );
      await expect(
        page.getByRole('region', { name: 'Failed payments' }).locator('.billing-figure').textContent(),
      ).resolves.toBe(String(overview.subscriptions.past_due));
      const revenue = page.getByRole('region', { name: 'Revenue' });
      for (const each of overview.revenue.by_currency) {
        const net = new Intl.NumberFormat('en-GB', { style: 'currency', currency: each.currency.toUpperCase() });
        await revenue.getByText(net.format(each.net / 100), { exact: true }).waitFor();
      }
      await expect(
        page.getByRole('region', { name: 'Credits' }).locator('.billing-figure').textContent(),
      ).resolves.toBe(String(overview.credits.outstanding));
      const nav = page.getByRole('navigation', { name: 'Billing' });
      await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
        'Overview',
        'Payments',
        'Invoices',
        'Subscriptions',
        'Coupons',
        'Credits',
      ]);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'billing-overview');

      for (const [link, heading, shot] of [
        ['Invoices', 'Invoices', 'billing-invoices'],
        ['Coupons', 'Coupons', 'billing-coupons'],
        ['Credits', 'Credits', 'billing-credits'],
      ] as const) {
        await nav.getByRole('link', { name: link }).click();
        await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
        await page
          .locator('.loading')
          .first()
          .waitFor({ state: 'detached' })
          .catch(() => undefined);
        expect(await seriousViolations(page)).toEqual([]);
        await screenshotBothSizes(page, shot);
      }
      // A payment's record at the local provider opens from its row.
      await nav.getByRole('link', { name: 'Payments' }).click();
      await page.getByRole('button', { name: 'At the provider…' }).first().click();
      await page
        .getByRole('dialog')
        .getByText(/The local payment provider \(development\) holds/)
        .waitFor();
      await page.getByRole('dialog').locator('pre').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'creates a coupon and a promotion code for it, then deactivates the code',
    async () => {
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, billingToken, '/admin/billing/coupons');
      await page.getByRole('button', { name: 'New coupon…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Spring twenty');
      await dialog.getByLabel('Percent off').fill('20');
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Create coupon' }).click();
      await page.getByText('Coupon Spring twenty created').waitFor();
      await page.getByRole('row').filter({ hasText: 'Spring twenty' }).waitFor();

      await page.getByRole('button', { name: 'New promotion code…' }).click();
      await dialog.getByLabel('Code').fill('spring20');
      await dialog.getByRole('button', { name: /Coupon/ }).click();
      await page.getByRole('option', { name: /Spring twenty/ }).click();
      await dialog.getByRole('button', { name: 'Create code' }).click();
      await page.getByText('Promotion code SPRING20 created').waitFor();
      const codeRow = page.getByRole('row').filter({ hasText: 'SPRING20' });
      await codeRow.getByRole('button', { name: 'Deactivate…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/can no longer enter it at checkout/).waitFor();
      await confirm.getByRole('button', { name: 'Deactivate' }).click();
      await page.getByText('Code SPRING20 deactivated').waitFor();
      await codeRow.getByRole('button', { name: 'Activate…' }).waitFor();

      const coupons = await apiGet('/v1/admin/billing/coupons?q=Spring%20twenty');
      expect(coupons.data).toHaveLength(1);
      expect(coupons.data[0]).toMatchObject({ percent_off: 20, duration: 'once', deleted_at: null });
      const codes = await apiGet('/v1/admin/billing/promotion-codes?q=SPRING20');
      expect(codes.data).toHaveLength(1);
      expect(codes.data[0]).toMatchObject({ coupon_id: coupons.data[0].id, active: false });
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'grants credits and gifts packs to a player found by email, each confirmed, and the ledger shows them',
    async () => {
      const player = (await service.players())[5]!;
      const giftables = await apiGet('/v1/admin/billing/giftable-tiers');
      const pack = giftables.packs[0];
      const { page, context } = await service.window();
      await signInWithToken(page, service.origin, billingToken, '/admin/billing/credits');
      await page.getByText('Choose a player first (Player email above)').first().waitFor();
      await page.getByLabel('Player email').fill(player.email);
      await page.getByLabel('Player email').press('Enter');
      await page.waitForURL(new RegExp(`user_id=${player.id}`));
      await page.getByRole('link', { name: player.email }).first().waitFor();

      await page.getByRole('button', { name: 'Grant credits…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Credits').fill('120');
      await dialog.getByLabel('Reason').fill('Sorry for the outage on Friday');
      await dialog
        .getByText(`Adds 120 credits to ${player.email}’s balance now, at no charge. They never lapse.`)
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshotBothSizes(page, 'billing-grant');
      await dialog.getByRole('button', { name: 'Grant 120 credits' }).click();
      await page.getByText(new RegExp(`120 credits granted to ${player.email}`)).waitFor();
      await page.getByRole('row').filter({ hasText: 'Sorry for the outage on Friday' }).waitFor();

      await page.getByRole('button', { name: 'Gift a pack…' }).click();
      await dialog.getByLabel('How many packs').fill('2');
      await dialog.getByLabel('Reason').fill('Tournament prize');
      await dialog.getByText(`Adds ${pack.credits * 2} credits (2 × ${pack.name})`).waitFor();
      await dialog.getByText(/nothing is charged/).waitFor();
      await dialog.getByRole('button', { name: `Gift ${pack.credits * 2} credits` }).click();
      await page.getByText(new RegExp(`${pack.credits * 2} credits gifted to`)).waitFor();
      await page.getByRole('row').filter({ hasText: 'Tournament prize' }).waitFor();

      const ledger = await apiGet(`/v1/admin/billing/ledger?user_id=${player.id}`);
      const byReason = (reason: string) => ledger.data.filter((entry: { reason: string }) => entry.reason === reason);
      expect(byReason('Sorry for the outage on Friday')).toMatchObject([{ kind: 'grant', amount: 120 }]);
      expect(byReason('Tournament prize')).toMatchObject([{ kind: 'gift', amount: pack.credits * 2 }]);
      await page.getByRole('link', { name: 'Lots' }).click();
      await page.getByRole('row').filter({ hasText: 'gift' }).first().waitFor();
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'staff who may only read billing see the write buttons disabled, each with the reason',
    async () => {
      const reader = await createUser(service.t.db, ['billing.read', 'users.read']);
      const { page, context } = await service.window('phone');
      await signInWithToken(page, service.origin, reader.token, '/admin/billing/payments');
      await page.getByRole('button', { name: 'Refund…' }).first().waitFor();
      await expect(page.getByRole('button', { name: 'Refund…' }).first().isDisabled()).resolves.toBe(true);
      await page.getByText('Refunds need billing.write').first().waitFor();

      await page.goto(`${service.origin}/admin/billing/subscriptions?status=active`);
      await page.getByRole('button', { name: 'Cancel at period end…' }).first().waitFor();
      await expect(page.getByRole('button', { name: 'Cancel at period end…' }).first().isDisabled()).resolves.toBe(
        true,
      );
      await page.getByText('Needs billing.write').first().waitFor();

      await page.goto(`${service.origin}/admin/billing/coupons`);
      await expect(page.getByRole('button', { name: 'New coupon…' }).isDisabled()).resolves.toBe(true);
      await page.goto(`${service.origin}/admin/billing/credits`);
      await expect(page.getByRole('button', { name: 'Grant credits…' }).isDisabled()).resolves.toBe(true);
      await expect(page.getByRole('button', { name: 'Gift a pack…' }).isDisabled()).resolves.toBe(true);
      await page.getByText('Needs billing.write').first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
