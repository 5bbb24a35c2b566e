import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MailTransportError, type MailMessage, type MailTransport } from '../../../../src/adapters/mail/index.js';
import {
  createMailDispatcher,
  mailDispatcherFor,
  MAX_ATTEMPTS,
  retryDelayMs,
  type MailDispatcher,
  type SettledMessage,
} from '../../../../src/modules/email/delivery/dispatcher.js';
import { verifyUnsubscribeToken } from '../../../../src/modules/email/unsubscribe-token.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { captureLog } from '../../../helpers/captured-log.js';
import { closedPort } from '../../../helpers/ports.js';
import { startSmtpServer, type SmtpTestServer } from '../../../helpers/smtp-server.js';
import {
  createCampaign,
  createTemplate,
  emptyQueue,
  literal,
  messageRow,
  messageRows,
  queue,
  templated,
  unsubscribeTokenOf,
  type TemplateVersionFixture,
} from './fixtures.js';
import { waitFor } from '../../../helpers/waiting.js';

/**
 * The mail dispatcher on a real database: claims due messages (committed before any send),
 * sends through the outbox or a real SMTP server, records each outcome; suppressed marketing is
 * skipped, transient failures come back with backoff until the fifth attempt, a message whose
 * sender died mid-send is failed and never resent, and two instances send each message once.
 */

const PASSWORD = 'dispatch-p@ss/word%';
const MAILTO = 'unsubscribe@platform.test';
let outbox: TestApp;
let smtp: TestApp & { testDatabase: Awaited<ReturnType<typeof startTestApp>>['testDatabase'] };
let server: SmtpTestServer;
let welcome: TemplateVersionFixture;
let welcomeOnSmtp: TemplateVersionFixture;

const WELCOME = {
  subject: 'Welcome, {{ name }}',
  html: '<p>Hi {{ name }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>',
  text: 'Hi {{ name }} ({{ email }})\nUnsubscribe: {{ unsubscribe_url }}',
};

beforeAll(async () => {
  server = await startSmtpServer({ user: 'mailer', password: PASSWORD });
  outbox = await startTestApp();
  smtp = await startTestApp({ config: { smtpUrl: server.url, mailUnsubscribeMailto: MAILTO } });
  welcome = await createTemplate(outbox.db, WELCOME);
  welcomeOnSmtp = await createTemplate(smtp.db, WELCOME);
});
afterAll(async () => {
  await outbox.close();
  await smtp.close();
  await server.close();
});
beforeEach(async () => {
  await emptyQueue(outbox.db);
  await emptyQueue(smtp.db);
  server.received.length = 0;
  server.refuse = () => undefined;
});

const seconds = (from: Date, n: number) => new Date(from.getTime() + n * 1000);
const emptyRound = { interrupted: 0, skipped: 0, claimed: 0, sent: 0, failed: 0, retrying: 0, released: 0, lost: 0 };

describe('queueEmails', () => {
  it('inserts literal and templated rows in one statement and answers their ids in the order given', async () => {
    const later = new Date(Date.now() + 3_600_000);
    const campaignId = await createCampaign(outbox.db, welcome);
    const ids = await queue(outbox.db, [
      literal('a@example.test'),
      templated(
        welcome,
        'b@example.test',
        { name: 'Bea' },
        { campaign_id: campaignId, held: true, next_attempt_at: later },
      ),
    ]);
    expect(ids).toHaveLength(2);
    const [a, b] = await messageRows(outbox.db, ids);
    expect(a).toMatchObject({
      to_email: 'a@example.test',
      category: 'transactional',
      template_id: null,
      template_version: null,
      vars: {},
      subject: 'Receipt for a@example.test',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      campaign_id: null,
      broadcast_id: null,
      status: 'queued',
      held: false,
      attempts: 0,
      lease_until: null,
    });
    expect(b).toMatchObject({
      to_email: 'b@example.test',
      category: 'marketing',
      template_id: welcome.id,
      template_version: 1,
      vars: { name: 'Bea' },
      subject: null,
      html: null,
      text: null,
      campaign_id: campaignId,
      status: 'queued',
      held: true,
      attempts: 0,
    });
    expect(b!.next_attempt_at.getTime()).toBe(later.getTime());
    expect(await queue(outbox.db, [])).toEqual([]);
  });

  it('queues 5,000 messages in one call', async () => {
    const ids = await queue(
      outbox.db,
      Array.from({ length: 5_000 }, (_, i) => literal(`bulk-${i}@example.test`)),
    );
    expect(new Set(ids).size).toBe(5_000);
    const count = await outbox.db
      .selectFrom('email_messages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(5_000);
  });
});

describe('a round with the outbox transport', () => {
  it('sends every due message: sent, one attempt, transport outbox, lease cleared', async () => {
    const ids = await queue(outbox.db, [
      literal('a@example.test'),
      templated(welcome, 'b@example.test', { name: 'Bea' }),
    ]);
    const round = await mailDispatcherFor(outbox.kernel).runOnce();
    expect(round).toEqual({ ...emptyRound, claimed: 2, sent: 2 });
    for (const row of await messageRows(outbox.db, ids)) {
      expect(row).toMatchObject({
        status: 'sent',
        attempts: 1,
        transport: 'outbox',
        lease_until: null,
        last_error: null,
      });
      expect(row.transport_message_id).toMatch(/^outbox-/);
      expect(row.sent_at).toBeInstanceOf(Date);
    }
    expect(await mailDispatcherFor(outbox.kernel).runOnce()).toEqual(emptyRound);
  });

  it('leaves held messages, messages not yet due and other statuses alone; a later clock picks up the due one', async () => {
    const [held, future, due] = await queue(outbox.db, [
      literal('held@example.test', { held: true }),
      literal('future@example.test', { next_attempt_at: new Date(Date.now() + 60_000) }),
      literal('due@example.test'),
    ]);
    const now = new Date();
    const [failed] = await queue(outbox.db, [literal('failed@example.test')]);
    await outbox.db
      .updateTable('email_messages')
      .set({ status: 'failed', last_error: 'x' })
      .where('id', '=', failed!)
      .execute();
    const dispatcher = mailDispatcherFor(outbox.kernel);
    expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 1, sent: 1 });
    expect((await messageRows(outbox.db, [held!, future!, due!, failed!])).map((row) => row.status)).toEqual([
      'queued',
      'queued',
      'sent',
      'failed',
    ]);
    expect(await dispatcher.runOnce(seconds(now, 61))).toMatchObject({ claimed: 1, sent: 1 });
    expect((await messageRow(outbox.db, future!)).status).toBe('sent');
    expect(await messageRow(outbox.db, held!)).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it('skips marketing mail to a suppressed address (compared lowercased) at claim; transactional mail still goes', async () => {
    await outbox.db
      .insertInto('email_suppressions')
      .values({ email: 'quiet@example.test', reason: 'unsubscribed', source: 'one_click', message_id: null })
      .execute();
    const [marketing, transactional, other] = await queue(outbox.db, [
      templated(welcome, 'Quiet@Example.TEST', { name: 'Q' }),
      literal('quiet@example.test'),
      templated(welcome, 'loud@example.test', { name: 'L' }),
    ]);
    const round = await mailDispatcherFor(outbox.kernel).runOnce();
    expect(round).toEqual({ ...emptyRound, skipped: 1, claimed: 2, sent: 2 });
    expect(await messageRow(outbox.db, marketing!)).toMatchObject({
      status: 'skipped',
      last_error: 'suppressed',
      attempts: 0,
      lease_until: null,
      sent_at: null,
      transport: null,
    });
    expect((await messageRow(outbox.db, transactional!)).status).toBe('sent');
    expect((await messageRow(outbox.db, other!)).status).toBe('sent');
  });

  it('fails a message whose lease ran out as interrupted, never sending it again; a live lease is left alone', async () => {
    const now = new Date();
    const [expired, live] = await queue(outbox.db, [literal('expired@example.test'), literal('live@example.test')]);
    await outbox.db
      .updateTable('email_messages')
      .set({ status: 'sending', attempts: 1, lease_until: seconds(now, -1) })
      .where('id', '=', expired!)
      .execute();
    await outbox.db
      .updateTable('email_messages')
      .set({ status: 'sending', attempts: 1, lease_until: seconds(now, 60) })
      .where('id', '=', live!)
      .execute();
    expect(await mailDispatcherFor(outbox.kernel).runOnce(now)).toEqual({ ...emptyRound, interrupted: 1 });
    expect(await messageRow(outbox.db, expired!)).toMatchObject({
      status: 'failed',
      last_error: 'interrupted',
      lease_until: null,
      attempts: 1,
      sent_at: null,
    });
    expect(await messageRow(outbox.db, live!)).toMatchObject({ status: 'sending', attempts: 1 });
    expect(await mailDispatcherFor(outbox.kernel).runOnce(seconds(now, 30))).toEqual(emptyRound);
    expect((await messageRow(outbox.db, expired!)).status).toBe('failed');
  });

  it('paces sends: at 20 a second, 6 messages take at least 250 ms', async () => {
    await queue(
      outbox.db,
      Array.from({ length: 6 }, (_, i) => literal(`paced-${i}@example.test`)),
    );
    const dispatcher = createMailDispatcher(outbox.kernel, { ratePerSecond: 20 });
    const started = performance.now();
    expect(await dispatcher.runOnce()).toMatchObject({ claimed: 6, sent: 6 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('takes at most a batch per round, oldest due first', async () => {
    const now = new Date();
    const ids = await queue(
      outbox.db,
      Array.from({ length: 5 }, (_, i) =>
        literal(`batch-${i}@example.test`, { next_attempt_at: seconds(now, -10 + i) }),
      ),
    );
    const dispatcher = createMailDispatcher(outbox.kernel, { batchSize: 3 });
    expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 3, sent: 3 });
    expect((await messageRows(outbox.db, ids)).map((row) => row.status)).toEqual([
      'sent',
      'sent',
      'sent',
      'queued',
      'queued',
    ]);
  });
});

/** A transport that records what it was given and can be slowed down or made to fail. */
function recordingTransport(behaviour: { delayMs?: number; fail?: (message: MailMessage) => Error | undefined } = {}) {
  const sent: MailMessage[] = [];
  let sending!: () => void;
  /** Resolves when the first send has begun (the claim is committed by then). */
  const firstSendStarted = new Promise<void>((resolve) => (sending = resolve));
  const transport: MailTransport = {
    kind: 'outbox',
    async send(message) {
      sending();
      // A slow transport is the case under test: its send takes this long.
      if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
      const error = behaviour.fail?.(message);
      if (error) throw error;
      sent.push(message);
      return { transportMessageId: `rec-${sent.length}` };
    },
    async close() {},
  };
  return { transport, sent, firstSendStarted };
}

describe('stopping and settle listeners', () => {
  it('stopping mid-batch sends nothing more: unsent claims go back to the queue as they were', async () => {
    const ids = await queue(
      outbox.db,
      Array.from({ length: 4 }, (_, i) => literal(`stop-${i}@example.test`)),
    );
    const { transport, sent, firstSendStarted } = recordingTransport({ delayMs: 100 });
    const dispatcher = createMailDispatcher(outbox.kernel, { transport, concurrency: 1 });
    const round = dispatcher.runOnce();
    await firstSendStarted;
    await dispatcher.stop();
    expect(await round).toMatchObject({ claimed: 4, sent: 1, released: 3 });
    expect(sent).toHaveLength(1);
    const rows = await messageRows(outbox.db, ids);
    expect(rows.map((row) => [row.status, row.attempts, row.lease_until]).sort()).toEqual([
      ['queued', 0, null],
      ['queued', 0, null],
      ['queued', 0, null],
      ['sent', 1, null],
    ]);
    expect(rows.find((row) => row.status === 'sent')!.to_email).toBe(sent[0]!.to);
  });

  it('an outcome arriving after the claim was taken away (lease expired elsewhere) changes nothing', async () => {
    const [id] = await queue(outbox.db, [literal('late@example.test')]);
    const { transport, sent, firstSendStarted } = recordingTransport({ delayMs: 150 });
    const round = createMailDispatcher(outbox.kernel, { transport }).runOnce();
    await firstSendStarted;
    // What another instance does when it finds the lease expired.
    await outbox.db
      .updateTable('email_messages')
      .set({ status: 'failed', last_error: 'interrupted', lease_until: null })
      .where('id', '=', id!)
      .execute();
    expect(await round).toMatchObject({ claimed: 1, sent: 0, lost: 1 });
    expect(sent).toHaveLength(1);
    expect(await messageRow(outbox.db, id!)).toMatchObject({
      status: 'failed',
      last_error: 'interrupted',
      transport: null,
      sent_at: null,
    });
  });

  it('listeners get every outcome (sent, failed, retried, skipped, interrupted) inside the recording transaction', async () => {
    const campaignId = await createCampaign(outbox.db, welcome);
    const broadcastId = crypto.randomUUID();
    await outbox.db
      .insertInto('email_suppressions')
      .values({ email: 'skip@example.test', reason: 'manual', source: 'staff', message_id: null })
      .execute();
    const [ok, bad, later, skip, gone] = await queue(outbox.db, [
      literal('ok@example.test', { campaign_id: campaignId }),
      literal('bad@example.test', { campaign_id: campaignId }),
      literal('later@example.test', { broadcast_id: broadcastId }),
      templated(welcome, 'skip@example.test', {}, { campaign_id: campaignId }),
      literal('gone@example.test'),
    ]);
    const now = new Date();
    await outbox.db
      .updateTable('email_messages')
      .set({ status: 'sending', attempts: 1, lease_until: seconds(now, -1) })
      .where('id', '=', gone!)
      .execute();
    const { transport } = recordingTransport({
      fail: (m) =>
        m.to === 'bad@example.test'
          ? new MailTransportError('550 no', true, 550)
          : m.to === 'later@example.test'
            ? new MailTransportError('451 later', false, 451)
            : undefined,
    });
    const dispatcher = createMailDispatcher(outbox.kernel, { transport, concurrency: 1 });
    const seen: Array<SettledMessage & { stored: string }> = [];
    const remove = dispatcher.onSettled(async (trx, settled) => {
      expect(trx.isTransaction).toBe(true);
      for (const entry of settled) {
        // Read through the transaction: the outcome is already written in it.
        const stored = await trx
          .selectFrom('email_messages')
          .select('status')
          .where('id', '=', entry.id)
          .executeTakeFirstOrThrow();
        seen.push({ ...entry, stored: stored.status });
      }
    });
    await dispatcher.runOnce(now);
    const byId = (id: string) => seen.find((entry) => entry.id === id);
    expect(byId(ok!)).toEqual({
      id: ok,
      campaign_id: campaignId,
      broadcast_id: null,
      status: 'sent',
      last_error: null,
      stored: 'sent',
    });
    expect(byId(bad!)).toEqual({
      id: bad,
      campaign_id: campaignId,
      broadcast_id: null,
      status: 'failed',
      last_error: '550 no',
      stored: 'failed',
    });
    expect(byId(later!)).toEqual({
      id: later,
      campaign_id: null,
      broadcast_id: broadcastId,
      status: 'queued',
      last_error: '451 later',
      stored: 'queued',
    });
    expect(byId(skip!)).toEqual({
      id: skip,
      campaign_id: campaignId,
      broadcast_id: null,
      status: 'skipped',
      last_error: 'suppressed',
      stored: 'skipped',
    });
    expect(byId(gone!)).toEqual({
      id: gone,
      campaign_id: null,
      broadcast_id: null,
      status: 'failed',
      last_error: 'interrupted',
      stored: 'failed',
    });
    expect(seen).toHaveLength(5);
    remove();
    await queue(outbox.db, [literal('after@example.test')]);
    await dispatcher.runOnce();
    expect(seen).toHaveLength(5);
  });

  it('a failing listener does not lose the outcome: it is recorded without the listener, and logged', async () => {
    const [id] = await queue(outbox.db, [literal('listener@example.test')]);
    const captured = captureLog();
    const dispatcher = createMailDispatcher(outbox.kernel, { log: captured.log });
    dispatcher.onSettled(async (trx) => {
      // Its write is rolled back with it.
      await trx
        .insertInto('email_suppressions')
        .values({ email: 'listener-wrote@example.test', reason: 'manual', source: 'test', message_id: null })
        .execute();
      throw new Error('campaign bookkeeping broke');
    });
    expect(await dispatcher.runOnce()).toMatchObject({ sent: 1, lost: 0 });
    expect(await messageRow(outbox.db, id!)).toMatchObject({ status: 'sent', lease_until: null });
    expect(
      await outbox.db
        .selectFrom('email_suppressions')
        .selectAll()
        .where('email', '=', 'listener-wrote@example.test')
        .execute(),
    ).toEqual([]);
    expect(captured.text()).toContain('email settle listener failed');
  });
});

describe('over SMTP', () => {
  it('delivers the composed message: From, To, rendered subject and bodies, Message-ID, List-Unsubscribe (URL and mailto) and One-Click', async () => {
    const [marketing, receipt] = await queue(smtp.db, [
      templated(welcomeOnSmtp, 'Ada@Example.test', { name: 'Ada <3', unsubscribe_url: 'https://evil.example/' }),
      literal('bob@example.test'),
    ]);
    expect(await mailDispatcherFor(smtp.kernel).runOnce()).toMatchObject({ claimed: 2, sent: 2 });
    expect(server.received).toHaveLength(2);
    const mail = server.received.find((m) => m.envelope.to[0] === 'Ada@example.test')!;
    expect(mail.user).toBe('mailer');
    expect(mail.headers).toMatchObject({
      from: 'Platform <no-reply@platform.test>',
      // Nodemailer lowercases the domain; the local part is the receiver's business.
      to: 'Ada@example.test',
      subject: 'Welcome, Ada <3',
      'message-id': `<${marketing}@platform.test>`,
      'list-unsubscribe-post': 'List-Unsubscribe=One-Click',
    });
    const listUnsubscribe = mail.headers['list-unsubscribe']!;
    expect(listUnsubscribe).toMatch(
      /^<http:\/\/platform\.test\/v1\/public\/email\/unsubscribe\?token=[^>]+>, <mailto:unsubscribe@platform\.test\?subject=unsubscribe>$/,
    );
    const token = unsubscribeTokenOf(listUnsubscribe);
    // The link names this address and this message, signed; the vars could not replace it.
    expect(verifyUnsubscribeToken(smtp.kernel.signingKey, token)).toEqual({
      email: 'ada@example.test',
      messageId: marketing,
    });
    const link = listUnsubscribe.slice(1, listUnsubscribe.indexOf('>'));
    expect(mail.html).toBe(`<p>Hi Ada &lt;3</p><a href="${link.replace(/&/g, '&amp;')}">Unsubscribe</a>`);
    // SMTP carries lines ending in CRLF.
    expect(mail.text).toBe(`Hi Ada <3 (Ada@Example.test)\r\nUnsubscribe: ${link}`);
    const row = await messageRow(smtp.db, marketing!);
    expect(row).toMatchObject({ status: 'sent', transport: 'smtp', attempts: 1, last_error: null });
    expect(row.transport_message_id).toMatch(/^250 .*Ok: queued as Q\d/);
    // Transactional mail carries no unsubscribe headers.
    const plain = server.received.find((m) => m.envelope.to[0] === 'bob@example.test')!;
    expect(plain.headers['list-unsubscribe']).toBeUndefined();
    expect(plain.headers['list-unsubscribe-post']).toBeUndefined();
    expect(plain.headers).toMatchObject({
      subject: 'Receipt for bob@example.test',
      'message-id': `<${receipt}@platform.test>`,
    });
    expect(plain.text).toBe('Thanks');
  });

  it("a 550 refusal fails the message at once with the server's answer; no later round tries again", async () => {
    server.refuse = (to) => (to === 'nobody@example.test' ? { code: 550, message: 'No such user' } : undefined);
    const captured = captureLog();
    const dispatcher = createMailDispatcher(smtp.kernel, { log: captured.log });
    const [id] = await queue(smtp.db, [literal('nobody@example.test')]);
    const now = new Date();
    expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 1, failed: 1 });
    const row = await messageRow(smtp.db, id!);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lease_until: null, sent_at: null });
    expect(row.last_error).toContain('550 No such user');
    expect(await dispatcher.runOnce(seconds(now, 86_400))).toMatchObject({ claimed: 0 });
    expect(server.received).toHaveLength(0);
    expect(captured.text()).toContain('550 No such user');
  });

  it('a 451 refusal comes back with backoff (30 s, 1, 2, 4 min) and fails on the fifth attempt', async () => {
    server.refuse = () => ({ code: 451, message: 'Try again later' });
    const dispatcher = mailDispatcherFor(smtp.kernel);
    const [id] = await queue(smtp.db, [literal('slow@example.test')]);
    let now = new Date();
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 1, retrying: 1 });
      const row = await messageRow(smtp.db, id!);
      expect(row).toMatchObject({ status: 'queued', attempts: attempt, lease_until: null });
      expect(row.last_error).toContain('451 Try again later');
      const delay = row.next_attempt_at.getTime() - now.getTime();
      expect(delay).toBeGreaterThanOrEqual(retryDelayMs(attempt));
      expect(delay).toBeLessThan(retryDelayMs(attempt) + 5_000);
      // Not a moment before it is due.
      expect(await dispatcher.runOnce(new Date(row.next_attempt_at.getTime() - 1_000))).toMatchObject({ claimed: 0 });
      now = row.next_attempt_at;
    }
    expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 1, failed: 1 });
    const row = await messageRow(smtp.db, id!);
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lease_until: null });
    expect(row.last_error).toContain('451 Try again later');
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
    // Once the server takes mail again, a later message goes through.
    server.refuse = () => undefined;
    await queue(smtp.db, [literal('fine@example.test')]);
    expect(await dispatcher.runOnce(seconds(now, 1))).toMatchObject({ claimed: 1, sent: 1 });
  });

  it('an interrupted message is not resent over SMTP', async () => {
    const now = new Date();
    const [id] = await queue(smtp.db, [literal('crash@example.test')]);
    await smtp.db
      .updateTable('email_messages')
      .set({ status: 'sending', attempts: 1, lease_until: seconds(now, -5) })
      .where('id', '=', id!)
      .execute();
    expect(await mailDispatcherFor(smtp.kernel).runOnce(now)).toMatchObject({ interrupted: 1, claimed: 0 });
    expect(await mailDispatcherFor(smtp.kernel).runOnce(seconds(now, 3600))).toMatchObject({
      interrupted: 0,
      claimed: 0,
    });
    expect(await messageRow(smtp.db, id!)).toMatchObject({ status: 'failed', last_error: 'interrupted' });
    expect(server.received).toHaveLength(0);
  });

  it('no server (connection refused) is transient: back to the queue, and the password is in no error or log', async () => {
    const gone = await startTestApp({
      config: { smtpUrl: `smtp://mailer:${encodeURIComponent(PASSWORD)}@127.0.0.1:${await closedPort()}` },
    });
    try {
      const captured = captureLog();
      const [id] = await queue(gone.db, [literal('nobody-home@example.test')]);
      expect(await createMailDispatcher(gone.kernel, { log: captured.log }).runOnce()).toMatchObject({
        claimed: 1,
        retrying: 1,
      });
      const row = await messageRow(gone.db, id!);
      expect(row).toMatchObject({ status: 'queued', attempts: 1 });
      expect(row.last_error).toMatch(/ECONNREFUSED/);
      for (const text of [row.last_error!, captured.text()]) {
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain(encodeURIComponent(PASSWORD));
      }
    } finally {
      await gone.close();
    }
  });

  it('two instances on one database, racing: every message is sent exactly once', async () => {
    const other = await startTestApp({
      database: await smtp.testDatabase!.openAnother(),
      config: { smtpUrl: server.url },
    });
    try {
      const ids = await queue(
        smtp.db,
        Array.from({ length: 30 }, (_, i) => literal(`race-${i}@example.test`)),
      );
      const drain = async (dispatcher: MailDispatcher) => {
        let claimed = 0;
        for (;;) {
          const round = await dispatcher.runOnce();
          if (round.claimed === 0) return claimed;
          claimed += round.claimed;
        }
      };
      const [first, second] = await Promise.all([
        drain(createMailDispatcher(smtp.kernel, { batchSize: 4 })),
        drain(createMailDispatcher(other.kernel, { batchSize: 4 })),
      ]);
      expect(first + second).toBe(30);
      const messageIds = server.received.map((mail) => mail.headers['message-id']);
      expect(messageIds).toHaveLength(30);
      expect(new Set(messageIds)).toEqual(new Set(ids.map((id) => `<${id}@platform.test>`)));
      const rows = await messageRows(smtp.db, ids);
      expect(rows.every((row) => row.status === 'sent' && row.attempts === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('the poll loop', () => {
  it('starts on ready when scheduled jobs run here, sends without being asked, and stops on close', async () => {
    const polling = await startTestApp({
      database: await smtp.testDatabase!.openAnother(),
      config: { scheduledJobs: true, smtpUrl: server.url },
    });
    try {
      const [id] = await queue(polling.db, [literal('polled@example.test')]);
      await waitFor(async () => (await messageRow(polling.db, id!)).status === 'sent', 'the polled mail sent', {
        intervalMs: 50,
      });
      expect(server.received.map((mail) => mail.envelope.to[0])).toEqual(['polled@example.test']);
    } finally {
      await polling.close();
    }
  });
});
