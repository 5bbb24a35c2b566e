import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { captureLog } from '../../helpers/captured-log.js';
import { auditOf, requestIdOf } from '../../helpers/expectations.js';
import { goTrueError, startGoTrueServer, type GoTrueServer } from '../../helpers/gotrue-server.js';
import { TEST_JWT_SECRET } from '../../helpers/tokens.js';
import { confirm, DAY, mailedCode, runJobsAt, start, stateOf } from '../../helpers/account-deletion.js';

/**
 * Account deletion with the `gotrue` identity provider: confirmation disables sign-in there
 * first, and a failure there is 502 with nothing changed here (the code still works); the purge
 * removes the account there before here, and skips it for the next run when GoTrue fails.
 */

const SERVICE_KEY = 'gotrue-service-role-key-never-logged-0123456789';

let gotrue: GoTrueServer;
let t: TestApp;

async function sharedUser(): Promise<TestUser> {
  const user = await createUser(t.db);
  gotrue.addUser({ id: user.id, email: user.email });
  return user;
}

beforeAll(async () => {
  gotrue = await startGoTrueServer({ serviceKey: SERVICE_KEY, jwtSecret: TEST_JWT_SECRET, prefix: '/auth/v1' });
  t = await startTestApp({
    log: captureLog().log,
    config: { identityAdminUrl: gotrue.url, identityServiceKey: SERVICE_KEY, identityTimeoutMs: 300 },
  });
});
afterAll(async () => {
  await t.close();
  await gotrue.close();
});

const failing = { kind: 'answer', status: 500, body: goTrueError(500, 'unexpected_failure', 'down') } as const;

describe('confirmation against GoTrue', () => {
  it('GoTrue failing: 502 auth_service_error, nothing changed, and the same code works once it answers', async () => {
    const player = await sharedUser();
    expect((await start(t, player)).statusCode).toBe(202);
    const code = await mailedCode(t, player.id);
    const before = await stateOf(t, player.id);
    gotrue.behave(failing);
    const response = await confirm(t, player, code);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 502,
      body: { error: 'auth_service_error', details: { operation: 'disable sign-in' } },
    });
    expect(await stateOf(t, player.id)).toEqual(before);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    expect(gotrue.user(player.id)?.banned_until).toBeUndefined();

    gotrue.behave({ kind: 'normal' });
    const retried = await confirm(t, player, code);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(gotrue.user(player.id)?.banned_until).toBeDefined();
    expect((await stateOf(t, player.id)).user?.status).toBe('deleted');
  });
});

describe('the purge against GoTrue', () => {
  it('removes the account at GoTrue, then here; a GoTrue failure skips it until the next run', async () => {
    const player = await sharedUser();
    expect((await start(t, player)).statusCode).toBe(202);
    const confirmed = await confirm(t, player, await mailedCode(t, player.id));
    expect(confirmed.statusCode).toBe(200);
    const due = new Date(confirmed.json().hard_delete_at).getTime();

    gotrue.behave(failing);
    const failed = await runJobsAt(t, new Date(), new Date(due + DAY));
    // The first test's account is due too: every due account is skipped alike.
    expect(failed).toMatchObject({ result: 'ok', summary: { purged: 0, failed: 2 } });
    expect((await stateOf(t, player.id)).user?.status).toBe('deleted');
    expect(gotrue.user(player.id)).toBeDefined();

    gotrue.behave({ kind: 'normal' });
    const purged = await runJobsAt(t, new Date(), new Date(due + 3 * DAY));
    expect(purged).toMatchObject({ result: 'ok', summary: { purged: 2, failed: 0 } });
    expect(gotrue.user(player.id)).toBeUndefined();
    expect((await stateOf(t, player.id)).user).toBeUndefined();
  });
});
