import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { seedDemo } from '../../src/cli/seed/demo.js';
import type { Config } from '../../src/config.js';
import { DEMO_STAFF } from '../../src/cli/seed/people.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { TestDatabase } from '../helpers/database.js';
import { buildConsole } from '../helpers/console-build.js';
import { closedPort, freePortBelowEphemeral } from '../helpers/ports.js';
import { signToken } from '../helpers/tokens.js';

/**
 * The console's browser tests: the console built by Vite as `npm run build` builds it, served by
 * the real service (in this process, on a loopback port, on a database of the suite seeded with
 * `seed --demo`), driven in Debian's Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium; .ci/run
 * installs it) through what a staff member does.
 */

const ROOT = join(import.meta.dirname, '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');
export const SIZES = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export interface ConsoleService {
  t: TestApp;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  browser: Browser;
  /** A new browser window (its own sessionStorage), at the given size. */
  window(size?: keyof typeof SIZES): Promise<{ context: BrowserContext; page: Page }>;
  /** A token for a demo staff member, by role key (`owner`, `demo-support-agent`, …). */
  tokenFor(role: string): Promise<string>;
  /** The demo's active players who hold no role, by email: each test takes its own. */
  players(): Promise<Array<{ id: string; email: string; display_name: string | null }>>;
  close(): Promise<void>;
}

export const staffWithRole = (role: string) => {
  const staff = DEMO_STAFF.find((member) => member.role === role);
  if (staff === undefined) throw new Error(`no demo staff member has ${role}`);
  return staff;
};

export interface ConsoleServiceOptions {
  /** Seed the demo data set (default true); the sign-in tests need only the staff they make. */
  seed?: boolean;
  config?: Partial<Config>;
  /** The embedded development mode's owner: with `jwtSecretSource: 'generated'`, sign-in links work. */
  devOwner?: string;
}

/**
 * The demo data set as a service with the default settings leaves it once seeded: its database
 * dumped and the local payment provider's state (it holds the checkouts, subscriptions and payments
 * the seed bought), seeded by the first such file of a fork and copied by the next ones (seeding
 * costs 2.5-5 s a file). The seed writes the origin into checkout return URLs, so a copy listens on
 * the port it was seeded on: files in a fork run one after another, and the port (below the
 * ephemeral range, test/helpers/ports.ts) is free again.
 */
interface DemoSnapshot {
  port: number;
  dump: string;
  paymentsState: string;
}
let demoSnapshot: DemoSnapshot | undefined;

/** In the run's own temp directory (test/helpers/global-setup.ts): removed when the run ends. */
const snapshotDir = () => mkdtempSync(join(dirname(inject('pgliteDump')), 'console-demo-'));

/** The service with the console (and the demo data), listening, and a headless Chromium. */
export async function startConsoleService(options: ConsoleServiceOptions = {}): Promise<ConsoleService> {
  const consoleDir = buildConsole();
  const seeded = options.seed !== false;
  const shared = seeded && options.config === undefined && options.devOwner === undefined;
  const paymentsState = shared ? join(snapshotDir(), 'payments.json') : undefined;
  const start = (port: number, fromDump?: string) =>
    startTestApp({
      config: { consoleDir, port, publicBaseUrl: `http://127.0.0.1:${port}`, ...options.config },
      devOwner: options.devOwner,
      fromDump,
      localPaymentsStateFile: paymentsState,
    });
  let started: Awaited<ReturnType<typeof start>> | undefined;
  let port = 0;
  if (shared && demoSnapshot !== undefined) {
    ({ port } = demoSnapshot);
    copyFileSync(demoSnapshot.paymentsState, paymentsState!);
    started = await start(port, demoSnapshot.dump);
    try {
      await started.app.listen({ port, host: '127.0.0.1' });
    } catch (error) {
      // Something else took the port since: seed afresh on another.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      await started.close();
      rmSync(paymentsState!);
      started = undefined;
      demoSnapshot = undefined;
    }
  }
  if (started === undefined) {
    // The port a snapshot is seeded on is come back to by the fork's next files: outside the range
    // another fork's closedPort() draws from, or that fork could be handed it meanwhile.
    port = shared ? await freePortBelowEphemeral() : await closedPort();
    started = await start(port);
    if (seeded) await seedDemo(started.kernel, { userAgent: 'console browser tests' });
    if (shared) demoSnapshot = await snapshotOf(started, port, paymentsState!);
    await started.app.listen({ port, host: '127.0.0.1' });
  }
  const t = started;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    t,
    origin,
    browser,
    async window(size = 'desktop') {
      const context = await browser.newContext({ viewport: SIZES[size], timezoneId: 'Europe/Berlin', locale: 'en-GB' });
      const page = await context.newPage();
      watchForViolations(page);
      return { context, page };
    },
    tokenFor(role) {
      const staff = staffWithRole(role);
      return signToken({ sub: staff.id, email: staff.email });
    },
    async players() {
      const rows = await t.db
        .selectFrom('users')
        .select(['id', 'email', 'display_name'])
        .where('status', '=', 'active')
        .where('email', 'like', '%.demo@example.com')
        .where(
          'id',
          'not in',
          DEMO_STAFF.map((staff) => staff.id),
        )
        .where((eb) =>
          eb.not(
            eb.exists(eb.selectFrom('user_roles').select('user_id').whereRef('user_roles.user_id', '=', 'users.id')),
          ),
        )
        .orderBy('email')
        .execute();
      return rows.map((row) => ({ ...row, email: row.email ?? '' }));
    },
    async close() {
      await browser.close();
      await t.close();
      if (paymentsState !== undefined) rmSync(dirname(paymentsState), { recursive: true, force: true });
    },
  };
}

/** The seeded service's database and payment state, copied aside before anything else changes them. */
async function snapshotOf(t: TestApp & { testDatabase: TestDatabase | null }, port: number, paymentsState: string) {
  const dump = t.testDatabase?.dump;
  if (!dump) throw new Error('the console tests run on the embedded database');
  (t.kernel.payments as { flush?: () => void }).flush?.();
  const dir = snapshotDir();
  const snapshot: DemoSnapshot = { port, dump: join(dir, 'demo.tar'), paymentsState: join(dir, 'payments.json') };
  writeFileSync(snapshot.dump, await dump());
  copyFileSync(paymentsState, snapshot.paymentsState);
  return snapshot;
}

/**
 * A page's own failures fail its test: an uncaught error, or a Content-Security-Policy refusal
 * (the console must run under the strict policy the service sends).
 */
function watchForViolations(page: Page): void {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
    else if (message.text().startsWith('console screen failed')) problems.push(message.text());
  });
  (page as Page & { problems: string[] }).problems = problems;
}

export const pageProblems = (page: Page): string[] => (page as Page & { problems?: string[] }).problems ?? [];

/** Signs in through the sign-in page's token form, as a staff member would paste one. */
export async function signInWithToken(page: Page, origin: string, token: string, path = '/admin/'): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated by the browser's debugging protocol, which the page's CSP does not govern; once per
  // document (0.05-0.15 s each): the console moves between screens without loading a new one.
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })" +
      '.then((result) => result.violations)',
  )) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Screenshots of the page at both sizes, into test-artifacts/console/<name>-<size>.png. */
export async function screenshotBothSizes(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(SIZES.desktop);
}
