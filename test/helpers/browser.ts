import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, headless, as the console's browser tests drive it (`CHROMIUM_PATH` to use another). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

/**
 * What went wrong on a page, as the browser reports it: uncaught errors, and every
 * Content-Security-Policy refusal (each also a `securitypolicyviolation` event in the page).
 */
export function watchPage(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return { problems };
}
