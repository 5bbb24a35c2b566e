import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { launchChromium, watchPage } from '../../../helpers/browser.js';
import { closedPort } from '../../../helpers/ports.js';

/**
 * The local provider's checkout and portal pages in Chromium, under their strict policy (nothing
 * but the page itself, never framed): a player pays and lands on the game's success page, on
 * another origin, with no Content-Security-Policy refusal on the way.
 */

let t: TestApp;
let browser: Browser;
let origin: string;
/** The game's pages: the same service under another origin (localhost rather than 127.0.0.1). */
let game: string;
let player: TestUser;

beforeAll(async () => {
  const port = await closedPort();
  origin = `http://127.0.0.1:${port}`;
  game = `http://localhost:${port}`;
  t = await startTestApp({ config: { port, publicBaseUrl: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const staff = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Starter pack', credits: 100 },
  });
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${product.json().id}/prices`,
    token: staff.token,
    payload: { providerPriceId: 'price_browser_pages', currency: 'usd', unitAmount: 499 },
  });
  expect(price.statusCode, price.body).toBe(201);
  player = await createUser(t.db);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

const strict = (policy: string | undefined) => {
  expect(policy).toContain("default-src 'none'");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toContain('unsafe');
};

describe('local provider pages in a browser', () => {
  it('a checkout is paid on its page and the player lands on the success URL, with no refusal', async () => {
    const made = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { priceId: 'price_browser_pages', successUrl: `${game}/health?paid=1`, cancelUrl: `${game}/health` },
    });
    expect(made.statusCode, made.body).toBe(200);
    const page = await browser.newPage();
    const { problems } = watchPage(page);
    const answer = await page.goto(made.json().url);
    strict(answer?.headers()['content-security-policy']);
    expect(answer?.headers()['x-content-type-options']).toBe('nosniff');
    await page.getByRole('button', { name: 'Pay $4.99' }).click();
    await page.waitForURL(`${game}/health?paid=1`);
    const ledger = await t.db.selectFrom('credit_ledger').select('amount').where('user_id', '=', player.id).execute();
    expect(ledger.map((row) => Number(row.amount))).toEqual([100]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('the portal page links back to return_url, with no refusal', async () => {
    const session = await t.request({
      method: 'POST',
      url: '/v1/me/billing/portal-session',
      token: player.token,
      payload: { return_url: `${game}/health?back=1` },
    });
    expect(session.statusCode, session.body).toBe(200);
    const page = await browser.newPage();
    const { problems } = watchPage(page);
    const answer = await page.goto(session.json().url);
    strict(answer?.headers()['content-security-policy']);
    expect(answer?.headers()['content-security-policy']).toContain("form-action 'none'");
    await page.getByRole('link', { name: 'Back' }).click();
    await page.waitForURL(`${game}/health?back=1`);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
