import { createHash, randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/app.js';
import { startGoTrueServer, type GoTrueServer } from '../helpers/gotrue-server.js';
import { TEST_JWT_SECRET } from '../helpers/tokens.js';
import { type ConsoleService, pageProblems, seriousViolations, startConsoleService } from './harness.js';

/**
 * Signing in to the console at a GoTrue-compatible identity provider (the loopback GoTrue peer,
 * signing with the secret the service verifies with): password, magic link (PKCE), renewal before
 * the token ends, sign-out, where the console goes after, and the links it refuses.
 */

const SLOW = 120_000;
const ANON_KEY = 'anon-key-of-the-test-project';
const PASSWORD = 'correct horse battery staple';
const SESSION_KEY = 'platform-console.session';
const VERIFIER_KEY = 'platform-console.link-verifier';

// Evaluated in the page as source text: the suite's TypeScript has no DOM types.
/** Everything the page keeps in storage, as one string (to look for a token in). */
const storedText = (page: Page) =>
  page.evaluate('JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } })') as Promise<string>;

/** What the page keeps in its sessionStorage under this key. */
const stored = (page: Page, key: string) =>
  page.evaluate(`sessionStorage.getItem(${JSON.stringify(key)})`) as Promise<string | null>;

/** Who the service says the page's stored session is (`GET /v1/me` with its token). */
const storedSessionIsFor = (page: Page) =>
  page.evaluate(`(async () => {
    const stored = sessionStorage.getItem(${JSON.stringify(SESSION_KEY)});
    if (stored === null) return null;
    const answer = await fetch('/v1/me', { headers: { authorization: 'Bearer ' + JSON.parse(stored).accessToken } });
    return (await answer.json()).id ?? null;
  })()`) as Promise<string | null>;

/** The addresses the page loaded (a magic link's return, before the console takes its code out). */
function loadedAddresses(page: Page): string[] {
  const addresses: string[] = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest()) addresses.push(request.url());
  });
  return addresses;
}

describe('console sign-in at the identity provider', () => {
  let gotrue: GoTrueServer;
  let service: ConsoleService;
  let staff: TestUser;
  let owner: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    // Tokens live 65 s: the console renews a minute ahead, so 5 s after signing in.
    gotrue = await startGoTrueServer({
      serviceKey: 'service-role-key',
      jwtSecret: TEST_JWT_SECRET,
      anonKey: ANON_KEY,
      accessTokenSeconds: 65,
    });
    service = await startConsoleService({
      seed: false,
      config: { consoleGotrueUrl: gotrue.url, consoleGotrueAnonKey: ANON_KEY } as never,
    });
    staff = await createUser(service.t.db, ['users.read', 'ops.read'], { email: 'ines.staff@example.test' });
    gotrue.addUser({ id: staff.id, email: staff.email });
    gotrue.setPassword(staff.id, PASSWORD);
    owner = await createUser(service.t.db, ['users.read', 'ops.read'], { email: 'olga.owner@example.test' });
    gotrue.addUser({ id: owner.id, email: owner.email });
    gotrue.setPassword(owner.id, PASSWORD);
    // Another account at the same identity provider, whose tokens an attacker holds.
    mallory = await createUser(service.t.db, ['users.read'], { email: 'mallory@example.test' });
    gotrue.addUser({ id: mallory.id, email: mallory.email });
  }, SLOW);

  const signInWithPassword = async (page: Page, who: TestUser, path = '/admin/users') => {
    await page.goto(`${service.origin}${path}`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('.account-email').getByText(who.email).waitFor();
  };
  const askForLink = async (page: Page, who: TestUser) => {
    await page.getByLabel('Email').fill(who.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`If ${who.email} belongs to a staff account`).waitFor();
    const sent = gotrue.sentLinks.at(-1);
    expect(sent?.email).toBe(who.email);
    return sent!.link;
  };
  const codeExchanges = () =>
    gotrue.requests.filter((request) => request.method === 'POST' && request.path === '/token?grant_type=pkce');
  afterAll(async () => {
    await service?.close();
    await gotrue?.close();
  });

  it('signs in with email and password, renews the token before it ends, and signs out', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/users`);
    await page.waitForURL(/\/admin\/sign-in\?next=%2Fusers$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(staff.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Sign-in refused: Invalid login credentials').waitFor();

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const renewals = () => gotrue.requests.filter((request) => request.path === '/token?grant_type=refresh_token');
    expect(renewals()).toHaveLength(0);
    // Five seconds in, the console renews; the page keeps working on the new token.
    await expect.poll(() => renewals().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();

    // Signing out ends the session at the provider too: its refresh token renews nothing more.
    expect(gotrue.sessionsOf(staff.id)).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/sign-in/);
    await expect.poll(() => gotrue.sessionsOf(staff.id).length).toBe(0);
    const logouts = gotrue.requests.filter(
      (request) => request.method === 'POST' && request.path === '/logout?scope=local',
    );
    expect(logouts).toHaveLength(1);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('signs in with a magic link in the PKCE flow: the link returns a code this tab exchanges with its verifier', async () => {
    const { page, context } = await service.window();
    const addresses = loadedAddresses(page);
    await page.goto(`${service.origin}/admin/users?status=banned`);
    const link = await askForLink(page, staff);
    expect(await seriousViolations(page)).toEqual([]);
    // The request carries the S256 challenge; the verifier stays in this tab.
    const asked = gotrue.requests.findLast((request) => request.method === 'POST' && request.path.startsWith('/otp?'));
    expect(asked).toBeDefined();
    const { code_challenge: challenge, code_challenge_method: method } = asked!.body as Record<string, string>;
    expect(method).toBe('s256');
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const verifier = await stored(page, VERIFIER_KEY);
    expect(createHash('sha256').update(verifier!).digest('base64url')).toBe(challenge);
    expect(link).toContain('token=pkce_');

    const before = codeExchanges().length;
    await page.goto(link);
    await page.waitForURL(/\/admin\/users\?status=banned$/);
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.locator('.account-email').getByText(staff.email).waitFor();
    // The link came back with a code only (no tokens), which the console exchanged with the verifier.
    const returned = addresses.map((address) => new URL(address)).find((url) => url.searchParams.has('code'));
    expect(returned?.pathname).toBe('/admin/sign-in');
    expect(returned?.hash).toBe('');
    const exchanges = codeExchanges().slice(before);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.body).toEqual({ auth_code: returned?.searchParams.get('code'), code_verifier: verifier });
    // The verifier is spent, the code left the address bar, and the session is the staff member's.
    expect(await stored(page, VERIFIER_KEY)).toBeNull();
    expect(new URL(page.url()).hash).toBe('');
    expect(await storedSessionIsFor(page)).toBe(staff.id);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('takes no tokens from an address: a signed-in owner who opens a link with tokens stays signed in as themselves', async () => {
    const { page, context } = await service.window();
    await signInWithPassword(page, owner);
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const attacker = await gotrue.signIn(mallory.id);
    await page.goto(
      `${service.origin}/admin/sign-in?next=/users#access_token=${attacker.access_token}&refresh_token=x`,
    );
    await page
      .getByRole('alert')
      .getByText(
        `This address carried sign-in tokens, which the console never takes from an address. Nothing changed: you are still signed in as ${owner.email}.`,
      )
      .waitFor();
    await page.getByText(`You are signed in as ${owner.email}`).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    const everything = await storedText(page);
    expect(everything).not.toContain(attacker.access_token);
    expect(everything).not.toContain('"refreshToken":"x"');
    expect(await storedSessionIsFor(page)).toBe(owner.id);

    await page.getByRole('link', { name: `Continue as ${owner.email}` }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.locator('.account-email').getByText(owner.email).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('a tokens link signs no one in when no one is signed in either', async () => {
    const { page, context } = await service.window();
    const attacker = await gotrue.signIn(mallory.id);
    await page.goto(
      `${service.origin}/admin/sign-in?next=/users#access_token=${attacker.access_token}&refresh_token=x`,
    );
    await page.getByRole('alert').getByText('This address carried sign-in tokens').waitFor();
    await page.getByLabel('Email').waitFor();
    expect(await storedText(page)).not.toContain(attacker.access_token);
    expect(await storedSessionIsFor(page)).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('refuses a link in a tab that did not ask for it, sending nothing; the tab that asked can still use it', async () => {
    const asker = await service.window();
    await asker.page.goto(`${service.origin}/admin/users`);
    const link = await askForLink(asker.page, staff);

    const other = await service.window();
    const addresses = loadedAddresses(other.page);
    const before = codeExchanges().length;
    await other.page.goto(link);
    await other.page
      .getByRole('alert')
      .getByText(
        'This sign-in link was asked for in another tab or browser, so it does not sign you in here. Open it in the tab where you asked for it, or ask for a new link below.',
      )
      .waitFor();
    expect(await seriousViolations(other.page)).toEqual([]);
    await other.page.getByLabel('Email').waitFor();
    expect(codeExchanges().length).toBe(before);
    expect(await storedSessionIsFor(other.page)).toBeNull();
    expect(new URL(other.page.url()).searchParams.has('code')).toBe(false);
    expect(pageProblems(other.page)).toEqual([]);

    // The code was not spent: in the tab that asked, it signs in.
    const returned = addresses.find((address) => new URL(address).searchParams.has('code'));
    await asker.page.goto(returned!);
    await asker.page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(await storedSessionIsFor(asker.page)).toBe(staff.id);
    await other.context.close();
    await asker.context.close();
  });

  it('refuses an older link once the tab asked for a newer one, and the newer one works', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/users`);
    const older = await askForLink(page, staff);
    const newer = await askForLink(page, staff);
    await page.goto(older);
    await page
      .getByRole('alert')
      .getByText(
        'This sign-in link was not asked for by this tab, or a newer link was asked for since. Use the newest link, in the tab that asked for it.',
      )
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await storedSessionIsFor(page)).toBeNull();
    await page.goto(newer);
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(await storedSessionIsFor(page)).toBe(staff.id);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('never replaces a session with a returning link: it says so and the person stays signed in', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/users`);
    const link = await askForLink(page, staff);
    // Someone else signs in in this tab before the link is opened.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('.account-email').getByText(owner.email).waitFor();
    const before = codeExchanges().length;
    await page.goto(link);
    await page
      .getByRole('alert')
      .getByText(
        `A sign-in link was opened while you are signed in as ${owner.email}. It was not used, and you are still signed in as ${owner.email}.`,
      )
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(codeExchanges().length).toBe(before);
    expect(await storedSessionIsFor(page)).toBe(owner.id);
    // Signing out here leaves the sign-in forms, and nothing of the link.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await storedSessionIsFor(page)).toBeNull();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('never sends a person to another site after signing in', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/sign-in?next=${encodeURIComponent('//evil.example/steal')}`);
    await page.getByLabel('Email').fill(staff.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(new URL(page.url()).origin).toBe(service.origin);
    await context.close();
  });
});

describe('console sign-in with the development link', () => {
  let service: ConsoleService;
  const owner = randomUUID();

  beforeAll(async () => {
    service = await startConsoleService({ seed: false, config: { jwtSecretSource: 'generated' }, devOwner: owner });
    await service.t.db.insertInto('users').values({ id: owner, email: 'owner@localhost' }).execute();
    await service.t.db
      .insertInto('user_roles')
      .values((eb) => ({
        user_id: owner,
        role_id: eb.selectFrom('roles').select('id').where('key', '=', 'owner'),
        granted_by: null,
        reason: 'development owner',
        expires_at: null,
      }))
      .execute();
  }, SLOW);
  afterAll(async () => {
    await service?.close();
  });

  it('opens the printed link, signs the owner in once, and a second use of the link is refused', async () => {
    const code = service.t.kernel.devSignIn!.issue();
    const link = `${service.origin}/admin/sign-in#code=${code}`;
    const first = await service.window();
    await first.page.goto(link);
    await first.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await first.page.getByText('owner@localhost').waitFor();
    expect(new URL(first.page.url()).hash).toBe('');
    expect(pageProblems(first.page)).toEqual([]);

    const second = await service.window();
    await second.page.goto(link);
    await second.page.getByRole('alert').getByText('This sign-in link was used already or has expired.').waitFor();
    await second.page.getByText('open the sign-in link npm start printed').waitFor();
    expect(await seriousViolations(second.page)).toEqual([]);

    await first.context.close();
    await second.context.close();
  });

  it('does not use a link opened where the owner is signed in; its code still works in another window', async () => {
    const signedIn = await service.window();
    await signedIn.page.goto(`${service.origin}/admin/sign-in#code=${service.t.kernel.devSignIn!.issue()}`);
    await signedIn.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const another = service.t.kernel.devSignIn!.issue();
    await signedIn.page.goto(`${service.origin}/admin/sign-in#code=${another}`);
    await signedIn.page
      .getByRole('alert')
      .getByText('A sign-in link was opened while you are signed in as owner@localhost. It was not used')
      .waitFor();
    expect(new URL(signedIn.page.url()).hash).toBe('');
    expect(await seriousViolations(signedIn.page)).toEqual([]);

    const fresh = await service.window();
    await fresh.page.goto(`${service.origin}/admin/sign-in#code=${another}`);
    await fresh.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(pageProblems(signedIn.page)).toEqual([]);
    await signedIn.context.close();
    await fresh.context.close();
  });
});
