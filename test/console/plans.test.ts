import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  SIZES,
  startConsoleService,
} from './harness.js';

/**
 * The console's Plans screens in Chromium, as the demo billing manager (plans.read and plans.write),
 * against the real service on the demo data and the embedded local payment provider: products and
 * prices, subscriber migration, tiers and rulesets; what each stores, read back through the API.
 */

const SLOW = 180_000;

interface ApiPrice {
  id: string;
  providerPriceId: string;
  currency: string;
  unitAmount: number;
  interval: string | null;
  isActive: boolean;
}
interface ApiProduct {
  id: string;
  name: string;
  kind: string;
  tierKey: string | null;
  isActive: boolean;
  prices: ApiPrice[];
}

describe('the staff console: Plans', () => {
  let service: ConsoleService;
  let token: string;
  let page: Page;

  beforeAll(async () => {
    service = await startConsoleService();
    token = await service.tokenFor('demo-billing');
    ({ page } = await service.window());
    await signInWithToken(page, service.origin, token, '/admin/plans');
    await page.getByRole('heading', { name: 'Products and prices', level: 2 }).waitFor();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  const apiGet = async (url: string) => {
    const answer = await service.t.request({ method: 'GET', url, token });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json();
  };
  const products = async (): Promise<ApiProduct[]> => (await apiGet('/v1/admin/plans/products')).data;
  /** axe, the screenshots, and no sideways scroll of the page at 390 px (tables scroll inside themselves). */
  const checkScreen = async (name: string) => {
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, name);
    await page.setViewportSize(SIZES.phone);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    await page.setViewportSize(SIZES.desktop);
    expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  };
  const choose = async (label: string | RegExp, option: string | RegExp) => {
    await page.getByRole('button', { name: label }).click();
    await page.getByRole('option', { name: option }).click();
  };

  it(
    'creates a plan with two prices, moves the subscribers of another plan to one, deactivates the other and archives the old plan',
    async () => {
      await checkScreen('plans-products');
      // The demo plan whose subscribers move, with one subscription the payment provider no longer knows.
      const before = await products();
      const yearly = before.find((product) => product.name === 'Pro (yearly)')!;
      const live = await service.t.db
        .selectFrom('billing_subscriptions')
        .select(['id', 'user_id'])
        .where('product_id', '=', yearly.id)
        .where('status', 'in', ['trialing', 'active', 'past_due'])
        .orderBy('id')
        .execute();
      expect(live.length).toBeGreaterThan(1);
      const broken = live[0]!;
      await service.t.db
        .updateTable('billing_subscriptions')
        .set({ provider_subscription_id: 'sub_gone_at_the_provider' })
        .where('id', '=', broken.id)
        .execute();

      // A new plan giving the Pro tier.
      await page.getByRole('button', { name: 'New product…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Pro 2027');
      await choose(/Tier it gives/, 'Pro');
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Create product' }).click();
      await page.getByRole('heading', { name: 'Pro 2027', level: 1 }).waitFor();

      // Two prices: euros and dollars, both yearly.
      for (const [amount, currency] of [
        ['99.00', 'EUR'],
        ['109.00', 'USD'],
      ] as const) {
        await page.getByRole('button', { name: 'Add price…' }).click();
        await dialog.getByLabel('Amount').fill(amount);
        await dialog.getByLabel('Currency').fill(currency);
        await choose(/Renews/, 'Every year');
        await dialog.getByRole('button', { name: 'Add price' }).click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('row').filter({ hasText: currency }).first().waitFor();
      }
      const created = (await products()).find((product) => product.name === 'Pro 2027')!;
      expect(created).toMatchObject({ kind: 'plan', tierKey: 'pro', isActive: true });
      const eur = created.prices.find((price) => price.currency === 'eur')!;
      const usd = created.prices.find((price) => price.currency === 'usd')!;
      expect(eur).toMatchObject({ unitAmount: 9900, interval: 'year', isActive: true });
      expect(usd).toMatchObject({ unitAmount: 10900, interval: 'year', isActive: true });
      const onSale = page.locator('dd').filter({ hasText: 'EUR:' });
      await onSale.getByText(/EUR: €99\.00 \/ year/).waitFor();
      await onSale.getByText(/USD: US\$109\.00 \/ year/).waitFor();
      await checkScreen('plans-product');

      // Move the yearly Pro subscribers to the new plan's euro price.
      await page.getByRole('link', { name: '← Products and prices' }).click();
      await page.getByRole('link', { name: 'Migrate subscribers' }).click();
      await page.getByRole('heading', { name: 'Migrate subscribers', level: 2 }).waitFor();
      await choose(/Move the subscribers of/, /^Pro \(yearly\) — /);
      await choose(/To the price/, /^Pro 2027 — .*\(EUR\)$/);
      await page.getByText(`${live.length} subscriptions`).waitFor();
      await page.getByRole('button', { name: 'Migrate…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/without proration.*they get the Pro tier now/).waitFor();
      const submit = confirm.getByRole('button', { name: 'Migrate subscribers' });
      await confirm.getByLabel(/to confirm/).fill(String(live.length + 1));
      expect(await submit.isDisabled()).toBe(true);
      await confirm.getByLabel(/to confirm/).fill(String(live.length));
      await checkScreen('plans-migrate-confirm');
      await submit.click();
      const result = page.getByRole('region', { name: 'Migration result' });
      await result.waitFor();
      await expect(result.locator('.plans-figure').allTextContents()).resolves.toEqual([
        String(live.length - 1),
        '1',
        String(live.length),
      ]);
      const failure = result.getByRole('row').filter({ hasText: 'resource_missing' });
      await failure.waitFor();
      const player = await service.t.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', broken.user_id)
        .executeTakeFirstOrThrow();
      await expect(failure.getByRole('link', { name: player.email ?? '' }).getAttribute('href')).resolves.toBe(
        `/admin/users/${broken.user_id}`,
      );
      await expect(failure.getByRole('link', { name: /^Subscription / }).getAttribute('href')).resolves.toBe(
        `/admin/billing/subscriptions?user_id=${broken.user_id}`,
      );
      await checkScreen('plans-migrate-result');

      // Each moved subscription is on the new plan at the euro price; the broken one stayed.
      const moved = await apiGet(`/v1/admin/billing/subscriptions?product_id=${created.id}&per_page=100`);
      expect(moved.meta.total).toBe(live.length - 1);
      expect(new Set(moved.data.map((each: { id: string }) => each.id))).toEqual(
        new Set(live.slice(1).map((each) => each.id)),
      );
      for (const each of moved.data)
        expect(each).toMatchObject({ product_name: 'Pro 2027', provider_price_id: eur.providerPriceId });
      const stayed = await apiGet(`/v1/admin/billing/subscriptions?user_id=${broken.user_id}`);
      expect(stayed.data.find((each: { id: string }) => each.id === broken.id)).toMatchObject({
        product_id: yearly.id,
      });

      // Take the dollar price off sale.
      await page.goto(`${service.origin}/admin/plans/products/${created.id}`);
      await page.getByRole('heading', { name: 'Pro 2027', level: 1 }).waitFor();
      await page
        .getByRole('row')
        .filter({ hasText: usd.providerPriceId })
        .getByRole('button', { name: 'Deactivate…' })
        .click();
      await confirm.getByText(/New checkouts can no longer use it/).waitFor();
      await confirm.getByRole('button', { name: 'Deactivate price' }).click();
      await page
        .getByRole('row')
        .filter({ hasText: usd.providerPriceId })
        .getByRole('button', { name: 'Activate…' })
        .waitFor();
      const pricesNow = async () => {
        const after = await apiGet(`/v1/admin/plans/products/${created.id}`);
        const state = (id: string) => after.prices.find((price: ApiPrice) => price.id === id)?.isActive;
        return { usd: state(usd.id), eur: state(eur.id) };
      };
      await expect.poll(pricesNow, { timeout: 5_000 }).toEqual({ usd: false, eur: true });

      // Describe the new plan and place it after the others.
      await page.getByRole('button', { name: 'Edit…' }).click();
      const edit = page.getByRole('dialog');
      await edit.getByLabel('Description (optional)').fill('Pro, billed yearly.');
      await edit.getByLabel('Sort order').fill('4');
      await edit.getByRole('button', { name: 'Save product' }).click();
      await edit.waitFor({ state: 'detached' });
      await page.getByText('Pro, billed yearly.').waitFor();
      await expect(apiGet(`/v1/admin/plans/products/${created.id}`)).resolves.toMatchObject({
        name: 'Pro 2027',
        description: 'Pro, billed yearly.',
        sortOrder: 4,
        tierKey: 'pro',
      });

      // Archive the demo plan whose subscribers moved: it leaves the store, nothing is deleted.
      await page.goto(`${service.origin}/admin/plans/products/${yearly.id}`);
      await page.getByRole('heading', { name: 'Pro (yearly)', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Archive…' }).click();
      await confirm.getByText(/Existing subscribers keep it/).waitFor();
      await confirm.getByRole('button', { name: 'Archive product' }).click();
      await page.getByRole('button', { name: 'Put on sale…' }).waitFor();
      await expect(apiGet(`/v1/admin/plans/products/${yearly.id}`)).resolves.toMatchObject({ isActive: false });
      const store = await service.t.request({ method: 'GET', url: '/v1/public/products' });
      expect(store.json().map((product: { id: string }) => product.id)).not.toContain(yearly.id);
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );

  it(
    'edits a ruleset’s limits and a tier, showing the refused name beside its field',
    async () => {
      await page.goto(`${service.origin}/admin/plans/tiers`);
      await page.getByRole('heading', { name: 'Rulesets', level: 2 }).waitFor();
      await checkScreen('plans-tiers');

      // The Standard ruleset gets a pool limit beside its frame rate, which rises to 120.
      await page
        .locator('[aria-label="Rulesets"]')
        .getByRole('row')
        .filter({ hasText: 'standard' })
        .getByRole('button', { name: 'Edit…' })
        .click();
      const dialog = page.getByRole('dialog');
      await dialog
        .getByLabel(/Limit \d value/)
        .first()
        .waitFor();
      const names = await dialog
        .getByLabel(/^Limit \d name$/)
        .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
      const fps = names.indexOf('max_fps') + 1;
      await dialog.getByLabel(`Limit ${fps} value`).fill('120');
      await dialog.getByRole('button', { name: 'Add a limit' }).click();
      const added = names.length + 1;
      await dialog.getByLabel(`Limit ${added} name`).fill('pool_id');
      await choose(`Limit ${added} type`, 'Text');
      await dialog.getByLabel(`Limit ${added} value`).fill('eu-shared');
      await checkScreen('plans-ruleset-editor');
      await dialog.getByRole('button', { name: 'Save ruleset' }).click();
      await dialog.waitFor({ state: 'detached' });
      const rulesets = (await apiGet('/v1/admin/plans/rulesets')).data;
      expect(rulesets.find((each: { key: string }) => each.key === 'standard')).toMatchObject({
        name: 'Standard',
        isActive: true,
        limits: { max_fps: 120, max_height: 1080, pool_id: 'eu-shared' },
      });

      // A new tier cannot take an existing tier's key (the API would replace that tier).
      await page.getByRole('button', { name: 'New tier…' }).click();
      await dialog.getByLabel('Key').fill('plus');
      await dialog.getByText('A tier has this key: edit that tier instead').waitFor();
      await expect(dialog.getByRole('button', { name: 'Create tier' }).isDisabled()).resolves.toBe(true);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      // A blank name is refused by the service, beside the Name field; once fixed the tier saves.
      await page
        .getByRole('row')
        .filter({ hasText: 'Unlimited play.' })
        .first()
        .getByRole('button', { name: 'Edit…' })
        .click();
      await dialog.getByLabel('Name').fill('   ');
      await dialog.getByLabel('Rank').fill('5');
      await dialog.getByRole('button', { name: 'Save tier' }).click();
      const nameField = dialog.locator('.field').filter({ has: page.getByLabel('Name') });
      await nameField.locator('[slot="errorMessage"]').waitFor();
      await checkScreen('plans-tier-refused');
      await dialog.getByLabel('Name').fill('Plus+');
      await expect(nameField.locator('[slot="errorMessage"]').count()).resolves.toBe(0);
      await dialog.getByRole('button', { name: 'Save tier' }).click();
      await dialog.waitFor({ state: 'detached' });
      const tiers = (await apiGet('/v1/admin/plans/tiers')).data;
      expect(tiers.find((each: { key: string }) => each.key === 'plus')).toMatchObject({
        name: 'Plus+',
        rank: 5,
        rulesetKey: 'standard',
        description: 'Unlimited play.',
      });
      await page.getByRole('row').filter({ hasText: 'Plus+' }).waitFor();
      expect(pageProblems(page)).toEqual([]);
    },
    SLOW,
  );
});
