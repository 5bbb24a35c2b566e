import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/database.js';
import { createMailDispatcher, type MailDispatcher } from '../../src/modules/email/delivery/dispatcher.js';
import { CampaignDelivery } from '../../src/modules/email/campaigns/delivery.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { draftCampaign, publishedTemplate } from '../helpers/campaigns.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-server.js';
import { RELIABILITY_FULL } from './fixtures.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * Several instances on one database. What already has its own test is not repeated here
 * (docs/reliability.md lists them): shared rate limits (test/kernel/rate-limits.test.ts and
 * redis-faults.test.ts), a panic level crossing instances (test/kernel/maintenance.test.ts),
 * the public site's cache (test/modules/site/settings/settings.test.ts), scheduled jobs run once
 * (test/modules/operations/scheduled-jobs/scheduler.test.ts), queued mail sent once (test/modules/email/delivery/delivery.test.ts),
 * realtime and incidents (test/modules/realtime/instances.test.ts, incidents/instances.test.ts).
 * Here: a campaign launched on several instances at once and sent by all of them, and (on
 * PostgreSQL) instances whose notification connection was cut catching up when it is back.
 * On PostgreSQL every instance after the first reaches the database through PgBouncer in
 * transaction mode (`openAnother({ pooled: true })`), as in the other multi-instance files here.
 */

const INSTANCES = RELIABILITY_FULL ? 4 : 2;
const RECIPIENTS = RELIABILITY_FULL ? 200 : 40;

describe(`a campaign on ${INSTANCES} instances`, () => {
  let smtp: SmtpTestServer;
  const apps: TestApp[] = [];
  let staff: TestUser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const first = await startTestApp({ config: { smtpUrl: smtp.url } });
    apps.push(first);
    for (let i = 1; i < INSTANCES; i += 1)
      apps.push(
        await startTestApp({
          database: await first.testDatabase!.openAnother({ pooled: true }),
          config: { smtpUrl: smtp.url },
        }),
      );
    staff = await createUser(first.db, ['email.read', 'email.write', 'email.send']);
    await publishedTemplate(first.db, 'multi-instance');
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await smtp?.close();
  });

  it('launched on every instance at once: one launch; every instance dispatching at once: each recipient mailed exactly once', async () => {
    const [first] = apps as [TestApp];
    const members = Array.from({ length: RECIPIENTS }, (_, i) => `m${i}-${randomUUID().slice(0, 6)}@example.test`);
    const id = await draftCampaign(first, staff, { templateKey: 'multi-instance', members, name: 'Everyone' });

    const launches = await Promise.all(
      apps.map((app) =>
        app.request({ method: 'POST', url: `/v1/admin/email/campaigns/${id}/launch`, token: staff.token }),
      ),
    );
    expect(launches.map((response) => response.statusCode).sort()).toEqual([
      200,
      ...Array.from({ length: INSTANCES - 1 }, () => 422),
    ]);

    const dispatchers = apps.map((app) => {
      const dispatcher: MailDispatcher = createMailDispatcher(app.kernel, { batchSize: 3 });
      dispatcher.onSettled(new CampaignDelivery(app.kernel.events).onSettled);
      return dispatcher;
    });
    await Promise.all(
      dispatchers.map(async (dispatcher) => {
        for (;;) {
          const round = await dispatcher.runOnce();
          if (round.claimed === 0 && round.interrupted === 0) return;
        }
      }),
    );
    const received = smtp.received.map((mail) => mail.envelope.to[0]!).sort();
    expect(received).toEqual([...members].sort());
    const view = await first.request({ method: 'GET', url: `/v1/admin/email/campaigns/${id}`, token: staff.token });
    expect(view.json()).toMatchObject({ status: 'sent', counts: { queued: 0, sent: RECIPIENTS } });
    // Through PgBouncer every statement takes one more hop: on a loaded 2-core machine this took
    // 15 s against 10 s direct (one run each), too close to the 20 s default.
  }, 60_000);
});

/**
 * Instance B reaches the database through a proxy; its LISTEN connection is cut (and new ones
 * refused) while instance A changes the panic level and the public site. Notifications sent
 * meanwhile are lost to B; when it reconnects (within a second) it must resync, not wait for
 * its 5 s poll or its 10 s cache lifetime. PostgreSQL only: the embedded database has no
 * connection to cut (and nothing to miss: it notifies in-process).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('an instance whose notification connection was cut', () => {
  let a: Awaited<ReturnType<typeof startTestApp>>;
  let b: TestApp;
  let proxy: TcpProxy;
  let bDatabase: Database;
  let operator: TestUser;
  let player: TestUser;
  let editor: TestUser;

  beforeAll(async () => {
    a = await startTestApp();
    const url = new URL(a.testDatabase!.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    bDatabase = openPostgres({ connectionString: proxy.via(a.testDatabase!.url!), poolMax: 3 });
    b = await startTestApp({ database: bDatabase });
    operator = await createUser(a.db, ['ops.panic']);
    player = await createUser(a.db);
    editor = await createUser(a.db, ['site.*', 'settings.*', 'content.*']);
  });
  afterAll(async () => {
    await b?.close();
    await bDatabase?.close();
    await proxy?.close();
    await a?.close();
  });

  it('catches up on the panic level set meanwhile within 3 s of the database returning', async () => {
    const write = () =>
      b.request({ method: 'PATCH', url: '/v1/me', token: player.token, payload: { display_name: 'x' } });
    expect((await write()).statusCode).toBe(200);
    proxy.refuse();
    const set = await a.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'lockdown', reason: 'While B was away' },
    });
    expect(set.statusCode, set.body).toBe(200);
    proxy.pass();
    const back = Date.now();
    await eventually(
      async () => expect((await write()).json()).toMatchObject({ error: 'panic_mode', level: 'lockdown' }),
      3_000,
    );
    expect(Date.now() - back).toBeLessThan(3_000);
    await a.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'off', reason: 'Back to normal' },
    });
    await eventually(async () => expect((await write()).statusCode).toBe(200), 3_000);
  });

  it("drops its public site copy when it reconnects, so a publish made meanwhile shows within 3 s, not after the copy's 10 s", async () => {
    const read = async () => (await b.request({ method: 'GET', url: '/v1/public/site' })).json().settings.auth_ui;
    expect(await read()).toBeUndefined();
    proxy.refuse();
    const saved = await a.request({
      method: 'PUT',
      url: '/v1/admin/site/settings/auth_ui',
      token: editor.token,
      payload: { draft: { providers: ['github'] } },
    });
    expect(saved.statusCode, saved.body).toBeLessThan(300);
    const published = await a.request({
      method: 'POST',
      url: '/v1/admin/site/settings/auth_ui/publish',
      token: editor.token,
      payload: {},
    });
    expect(published.statusCode, published.body).toBeLessThan(300);
    proxy.pass();
    await eventually(async () => expect(await read()).toEqual({ providers: ['github'] }), 3_000);
  });
});
