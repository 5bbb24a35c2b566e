import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, watchPage } from '../helpers/browser.js';

/**
 * The interactive API reference at /docs (Swagger UI) under its own strict policy, in Chromium:
 * it renders the document and tries an operation with no Content-Security-Policy refusal.
 */
describe('/docs in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('renders every operation and runs one under its policy, with no refusal', async () => {
    const page = await browser.newPage();
    const { problems } = watchPage(page);
    const answer = await page.goto(`${origin}/docs`);
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByRole('heading', { name: /Platform API/ }).waitFor();
    const operation = page.locator('#operations-system-getHealth');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody td.response-col_status');
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
