import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/app.js';
import { startGoTrueServer, type GoTrueServer } from '../helpers/gotrue-server.js';
import { TEST_JWT_SECRET } from '../helpers/tokens.js';
import { type ConsoleService, pageProblems, seriousViolations, startConsoleService } from './harness.js';

/**
 * Signing in to the console at a GoTrue-compatible identity provider (the loopback GoTrue peer,
 * signing with the secret the service verifies with): password, magic link, renewal before the
 * token ends, sign-out, and where the console goes after.
 */

const SLOW = 120_000;
const ANON_KEY = 'anon-key-of-the-test-project';

describe('console sign-in at the identity provider', () => {
  let gotrue: GoTrueServer;
  let service: ConsoleService;
  let staff: TestUser;

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
    gotrue.setPassword(staff.id, 'correct horse battery staple');
  }, SLOW);
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

    await page.getByLabel('Password').fill('correct horse battery staple');
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

  it('signs in with a magic link and returns to the page asked for', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/users?status=banned`);
    await page.getByLabel('Email').fill(staff.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`If ${staff.email} belongs to a staff account`).waitFor();
    const sent = gotrue.sentLinks.at(-1);
    expect(sent?.email).toBe(staff.email);
    await page.goto(sent!.link);
    await page.waitForURL(/\/admin\/users\?status=banned$/);
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    // The tokens left the address bar as soon as they were read.
    expect(new URL(page.url()).hash).toBe('');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('never sends a person to another site after signing in', async () => {
    const { page, context } = await service.window();
    await page.goto(`${service.origin}/admin/sign-in?next=${encodeURIComponent('//evil.example/steal')}`);
    await page.getByLabel('Email').fill(staff.email);
    await page.getByLabel('Password').fill('correct horse battery staple');
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
});
