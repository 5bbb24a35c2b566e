import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailDispatcher, type MailDispatcher } from '../../../src/modules/email/delivery/dispatcher.js';
import { CampaignDelivery } from '../../../src/modules/email/campaigns/delivery.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { startSmtpServer, type SmtpTestServer } from '../../helpers/smtp-server.js';

/**
 * Issue 6 end to end, through the staff API and a real SMTP server: write and publish a
 * template, import an audience from CSV, launch a campaign, broadcast to a segment in-app and by
 * mail; a player reads the notification, unsubscribes with the one-click URL of the mail they
 * got, and the next mail skips them.
 */

let smtp: SmtpTestServer;
let t: TestApp;
let staff: TestUser;
let dispatcher: MailDispatcher;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ config: { smtpUrl: smtp.url, publicBaseUrl: 'https://api.example.test' } });
  staff = await createUser(t.db, ['email.read', 'email.write', 'email.send', 'announcements.write']);
  dispatcher = createMailDispatcher(t.kernel);
  dispatcher.onSettled(new CampaignDelivery(t.kernel.events).onSettled);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, user: TestUser = staff) => {
  const response = await t.request({ method, url, token: user.token, ...(payload ? { payload } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.body === '' ? undefined : response.json();
};

async function sendAll() {
  for (let round = 0; round < 10; round++) if ((await dispatcher.runOnce()).claimed === 0) return;
}

describe('staff mail players, players unsubscribe', () => {
  it('template → audience (CSV) → campaign; broadcast in-app and by mail; one-click unsubscribe stops the next mail', async () => {
    await api('POST', '/v1/admin/email/templates', {
      key: 'season-two',
      name: 'Season two',
      version: {
        subject: 'Season two, {{ display_name | "player" }}',
        html: '<p>{{headline}}</p>',
        text: '{{headline}}',
      },
    });
    await api('POST', '/v1/admin/email/templates/season-two/publish', { version: 1 });
    const ada = await createUser(t.db, [], { email: 'ada@players.test' });
    await createUser(t.db, [], { email: 'bob@players.test' });
    await t.db.updateTable('users').set({ display_name: 'Ada' }).where('id', '=', ada.id).execute();

    const audience = await api('POST', '/v1/admin/email/audiences', { name: 'Beta players' });
    expect(
      await api('PUT', `/v1/admin/email/audiences/${audience.id}/members`, {
        csv: '\uFEFFemail\r\nAda@Players.test\r\nbob@players.test\r\nada@players.test\r\n\r\n',
      }),
    ).toEqual({ count: 2 });
    const campaign = await api('POST', '/v1/admin/email/campaigns', {
      name: 'Season two launch',
      template_key: 'season-two',
      audience_id: audience.id,
      vars: { headline: 'Season two is here' },
    });
    await api('POST', `/v1/admin/email/campaigns/${campaign.id}/launch`);
    await sendAll();
    expect(smtp.received.map((mail) => [mail.envelope.to[0], mail.headers.subject]).sort()).toEqual([
      ['ada@players.test', 'Season two, Ada'],
      ['bob@players.test', 'Season two, player'],
    ]);
    expect(await api('GET', `/v1/admin/email/campaigns/${campaign.id}`)).toMatchObject({
      status: 'sent',
      counts: { sent: 2 },
    });

    const broadcast = await api('POST', '/v1/admin/notifications/broadcast', {
      segment: { q: '@players.test' },
      notification: { title: 'Double XP weekend' },
      email: { template_key: 'season-two', vars: { headline: 'Double XP' } },
    });
    expect(broadcast).toEqual({ recipients: 2, notification: { created: 2 }, email: { queued: 2 } });
    await sendAll();
    expect(smtp.received).toHaveLength(4);
    const mine = await api('GET', '/v1/me/notifications', undefined, ada);
    expect(mine.data).toMatchObject([{ title: 'Double XP weekend', read: false }]);
    expect(mine.meta.unread).toBe(1);

    // Bob presses his mail client's unsubscribe button: a one-click POST to the header's URL.
    const bobsMail = smtp.received.filter((mail) => mail.envelope.to[0] === 'bob@players.test').at(-1)!;
    const oneClick = new URL(/^<([^>]+)>/.exec(bobsMail.headers['list-unsubscribe']!)![1]!);
    const unsubscribed = await t.request({
      method: 'POST',
      url: `${oneClick.pathname}${oneClick.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.statusCode).toBe(200);
    expect(
      await t.db
        .selectFrom('email_suppressions')
        .select(['email', 'reason', 'source'])
        .where('email', '=', 'bob@players.test')
        .execute(),
    ).toEqual([{ email: 'bob@players.test', reason: 'unsubscribed', source: 'one_click' }]);

    expect(
      await api('POST', '/v1/admin/notifications/broadcast', {
        segment: { q: '@players.test' },
        email: { template_key: 'season-two', vars: { headline: 'Last call' } },
      }),
    ).toEqual({ recipients: 2, notification: null, email: { queued: 1 } });
    await sendAll();
    expect(smtp.received.slice(4).map((mail) => mail.envelope.to[0])).toEqual(['ada@players.test']);
  });
});
