import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailDispatcher, type MailDispatcher } from '../../../../src/modules/email/delivery/dispatcher.js';
import { CampaignDelivery } from '../../../../src/modules/email/campaigns/delivery.js';
import { launchScheduledCampaignsJob } from '../../../../src/modules/email/campaigns/launch.js';
import { signUnsubscribeToken } from '../../../../src/modules/email/unsubscribe-token.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { draftCampaign, publishedTemplate } from '../../../helpers/campaigns.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';
import { startSmtpServer, type SmtpTestServer } from '../../../helpers/smtp-server.js';

/**
 * Campaigns sent to a real SMTP server: the launch snapshot (unsubscribed and banned members
 * left out), the headers each message carries, pause and resume (operation 18) with every
 * recipient receiving exactly one message, an unsubscribe between batches stopping the rest, a
 * run of failures stopping the campaign and a resume retrying only what certainly did not go out,
 * and scheduled launches.
 */

let smtp: SmtpTestServer;
let t: TestApp;
let staff: TestUser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ config: { smtpUrl: smtp.url, publicBaseUrl: 'https://api.example.test' } });
  staff = await createUser(t.db, ['email.read', 'email.write', 'email.send']);
  await publishedTemplate(t.db, 'launch-news', {
    name: 'Launch news',
    subject: 'Hi {{display_name | "player"}}',
    html: '<p>{{offer}}</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
    text: '{{offer}} {{unsubscribe_url}}',
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
  smtp.refuse = () => undefined;
});

/** A dispatcher sending two messages a round, following campaign outcomes as the app's own does. */
function dispatcher(): MailDispatcher {
  const made = createMailDispatcher(t.kernel, { batchSize: 2 });
  made.onSettled(new CampaignDelivery(t.kernel.events).onSettled);
  return made;
}

const campaign = (members: string[], extra: object = {}) =>
  draftCampaign(t, staff, { templateKey: 'launch-news', members, name: 'Launch', vars: { offer: 'Season 2' }, extra });

const addresses = (n: number) => Array.from({ length: n }, (_, i) => `p${i}-${randomUUID().slice(0, 6)}@example.test`);
const post = (path: string) =>
  t.request({ method: 'POST', url: `/v1/admin/email/campaigns/${path}`, token: staff.token });
const view = async (id: string) =>
  (await t.request({ method: 'GET', url: `/v1/admin/email/campaigns/${id}`, token: staff.token })).json();
const receivedBy = () => smtp.received.map((mail) => mail.envelope.to[0]!).sort();

async function drain(d: MailDispatcher, rounds = 20) {
  for (let i = 0; i < rounds; i++) {
    const round = await d.runOnce();
    if (round.claimed === 0 && round.interrupted === 0) return;
  }
}

describe('launching and sending', () => {
  it('snapshots the mailable members, sends each one message with List-Unsubscribe headers, and ends sent', async () => {
    const [kept, other] = addresses(2);
    const suppressed = `gone-${randomUUID().slice(0, 6)}@example.test`;
    const banned = await createUser(t.db, [], {
      email: `banned-${randomUUID().slice(0, 6)}@example.test`,
      status: 'banned',
    });
    await t.db
      .insertInto('email_suppressions')
      .values({ email: suppressed, reason: 'unsubscribed', source: 'link', message_id: null })
      .execute();
    const id = await campaign([kept!, other!, suppressed]);
    await t.db
      .insertInto('email_audience_members')
      .values({ audience_id: (await view(id)).audience_id, email: banned.email.toLowerCase(), user_id: banned.id })
      .execute();

    const launched = await post(`${id}/launch`);
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json()).toMatchObject({
      status: 'sending',
      template_version: 1,
      recipients: 2,
      excluded: 2,
      counts: { queued: 2 },
    });
    expect(await auditOf(t.db, requestIdOf(launched))).toMatchObject([
      { action: 'email.campaign.launch', summary: { recipients: 2, excluded: 2, template_version: 1 } },
    ]);

    await drain(dispatcher());
    expect(receivedBy()).toEqual([kept, other].sort());
    const mail = smtp.received.find((m) => m.envelope.to[0] === kept)!;
    expect(mail.headers.subject).toBe('Hi player');
    expect(mail.headers['list-unsubscribe']).toMatch(
      /^<https:\/\/api\.example\.test\/v1\/public\/email\/unsubscribe\?token=u1\.[^>]+>$/,
    );
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.html).toContain('<p>Season 2</p>');
    expect(await view(id)).toMatchObject({
      status: 'sent',
      completed_at: expect.any(String),
      counts: { queued: 0, sent: 2 },
    });
  });

  it('422 invalid_state for a campaign with nobody mailable, and for one already sending; nothing queued', async () => {
    const suppressed = `only-${randomUUID().slice(0, 6)}@example.test`;
    await t.db
      .insertInto('email_suppressions')
      .values({ email: suppressed, reason: 'unsubscribed', source: 'link', message_id: null })
      .execute();
    const nobody = await campaign([suppressed]);
    expect((await post(`${nobody}/launch`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'the audience has no mailable members', members: 1 },
    });
    expect(await view(nobody)).toMatchObject({ status: 'draft', recipients: null, counts: { queued: 0 } });
    const id = await campaign(addresses(1));
    expect((await post(`${id}/launch`)).statusCode).toBe(200);
    expect((await post(`${id}/launch`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'sending' },
    });
    expect((await view(id)).counts.queued).toBe(1);
    // Out of the way of the next tests' dispatch rounds.
    expect((await post(`${id}/cancel`)).json()).toMatchObject({ status: 'cancelled', counts: { cancelled: 1 } });
  });
});

describe('pause and resume (operation 18)', () => {
  it('paused mid-way, nothing more goes out; resumed (204), the rest goes; every recipient gets exactly one message', async () => {
    const members = addresses(6);
    const id = await campaign(members);
    await post(`${id}/launch`);
    const d = dispatcher();
    await d.runOnce();
    expect(smtp.received).toHaveLength(2);

    const paused = await post(`${id}/pause`);
    expect(paused.json()).toMatchObject({ status: 'paused', counts: { queued: 0, held: 4, sent: 2 } });
    await d.runOnce();
    expect(smtp.received).toHaveLength(2);

    const resumed = await post(`${id}/resume`);
    expect(resumed.statusCode).toBe(204);
    expect(resumed.body).toBe('');
    expect(await auditOf(t.db, requestIdOf(resumed))).toMatchObject([
      {
        action: 'email.campaign.resume',
        summary: { before: { status: 'paused' }, after: { status: 'sending' }, released: 4, requeued: 0 },
      },
    ]);
    await drain(d);
    expect(receivedBy()).toEqual([...members].sort());
    expect(await view(id)).toMatchObject({ status: 'sent', counts: { sent: 6, held: 0, queued: 0 } });
  });

  it('404 campaign for an unknown id; 422 invalid_state unless paused or stopped; 400 for a bad id', async () => {
    expect((await post(`${randomUUID()}/resume`)).json()).toEqual({ error: 'campaign' });
    expect((await post('not-a-uuid/resume')).statusCode).toBe(400);
    const id = await campaign(addresses(1));
    expect((await post(`${id}/resume`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'draft' },
    });
    await post(`${id}/launch`);
    expect((await post(`${id}/resume`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'sending' },
    });
    await drain(dispatcher());
    expect((await post(`${id}/resume`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'sent' },
    });
    expect((await post(`${id}/pause`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'sent' },
    });
  });

  it('an unsubscribe (one-click) between two batches stops the mail to that address', async () => {
    const members = addresses(4);
    const id = await campaign(members);
    await post(`${id}/launch`);
    const d = dispatcher();
    await d.runOnce();
    const sentTo = receivedBy();
    const pending = members.filter((member) => !sentTo.includes(member));
    const token = signUnsubscribeToken(t.kernel.signingKey, { email: pending[0]!, messageId: null });
    const oneClick = await t.request({
      method: 'POST',
      url: `/v1/public/email/unsubscribe?token=${encodeURIComponent(token)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBeLessThan(300);
    await drain(d);
    expect(receivedBy()).toEqual([...sentTo, pending[1]!].sort());
    expect(await view(id)).toMatchObject({ status: 'sent', counts: { sent: 3, skipped: 1 } });
  });
});

describe('a run of failures', () => {
  it('stops the campaign (failed, the rest held); resume retries what was refused, never what may have gone out', async () => {
    const members = addresses(5);
    const id = await campaign(members, { max_consecutive_failures: 2 });
    await post(`${id}/launch`);
    smtp.refuse = () => ({ code: 550, message: 'No such mailbox' });
    const d = dispatcher();
    await d.runOnce();
    expect(await view(id)).toMatchObject({
      status: 'failed',
      status_reason: 'stopped after 2 delivery failures in a row',
      counts: { failed: 2, held: 3, sent: 0 },
    });
    await d.runOnce();
    expect(smtp.received).toHaveLength(0);

    // A message whose sender died mid-send is never resent.
    const interrupted = await t.db
      .selectFrom('email_messages')
      .select('id')
      .where('campaign_id', '=', id)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('email_messages')
      .set({ last_error: 'interrupted' })
      .where('id', '=', interrupted.id)
      .execute();
    smtp.refuse = () => undefined;
    const resumed = await post(`${id}/resume`);
    expect(resumed.statusCode).toBe(204);
    expect(await auditOf(t.db, requestIdOf(resumed))).toMatchObject([
      { summary: { before: { status: 'failed' }, released: 3, requeued: 1 } },
    ]);
    await drain(d);
    expect(smtp.received).toHaveLength(4);
    expect(await view(id)).toMatchObject({ status: 'sent', counts: { sent: 4, failed: 1 } });
  });
});

describe('failures with deliveries between them', () => {
  it('a delivery ends the run: failures that never reach the limit in a row let the campaign finish', async () => {
    const id = await campaign(addresses(7), { max_consecutive_failures: 3 });
    await post(`${id}/launch`);
    const d = dispatcher();
    for (const refusing of [true, false, true, false]) {
      smtp.refuse = refusing ? () => ({ code: 550, message: 'No such mailbox' }) : () => undefined;
      await d.runOnce();
    }
    expect(await view(id)).toMatchObject({
      status: 'sent',
      status_reason: null,
      counts: { failed: 4, sent: 3, queued: 0, held: 0 },
    });
  });
});

describe('scheduled campaigns', () => {
  it('the job launches those due, marks one that cannot launch failed with the reason, and leaves the future ones', async () => {
    const due = await campaign(addresses(2));
    const later = await campaign(addresses(1));
    const broken = await campaign(addresses(1));
    const soon = new Date(Date.now() + 60_000).toISOString();
    for (const id of [due, broken])
      expect(
        (
          await t.request({
            method: 'POST',
            url: `/v1/admin/email/campaigns/${id}/schedule`,
            token: staff.token,
            payload: { at: soon },
          })
        ).statusCode,
      ).toBe(200);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/email/campaigns/${later}/schedule`,
          token: staff.token,
          payload: { at: new Date(Date.now() + 86_400_000).toISOString() },
        })
      ).statusCode,
    ).toBe(200);
    // The audience went away after scheduling (deleted): this one cannot launch when its time comes.
    await t.db.updateTable('email_campaigns').set({ audience_id: null }).where('id', '=', broken).execute();
    const summary = await t.db
      .transaction()
      .execute((trx) => launchScheduledCampaignsJob(trx, { now: new Date(Date.now() + 120_000), services: undefined }));
    expect(summary).toEqual({ launched: 1, failed: 1 });
    expect(await view(due)).toMatchObject({ status: 'sending', recipients: 2 });
    expect(await view(broken)).toMatchObject({
      status: 'failed',
      status_reason: 'could not launch: the campaign has no audience',
      launched_at: null,
    });
    expect(await view(later)).toMatchObject({ status: 'scheduled' });
    // A campaign that failed to launch can be edited and launched again.
    const audience = (await view(due)).audience_id;
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: `/v1/admin/email/campaigns/${broken}`,
          token: staff.token,
          payload: { audience_id: audience },
        })
      ).statusCode,
    ).toBe(200);
    expect((await post(`${broken}/launch`)).json()).toMatchObject({ status: 'sending', recipients: 2 });
  });
});
