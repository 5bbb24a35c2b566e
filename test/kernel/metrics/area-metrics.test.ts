import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailDispatcherFor } from '../../../src/modules/email/delivery/index.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { launchedCampaign, publishedTemplate } from '../../helpers/campaigns.js';
import { closedPort } from '../../helpers/ports.js';
import { startSmtpServer, type SmtpTestServer } from '../../helpers/smtp-server.js';
import { deliverStripeEvent, stripeEvent, type StripeTestEvent } from '../../helpers/stripe-events.js';
import { samplesOf, sampleValue, scrape, type Scrape } from './scrape.js';

/**
 * Issue 32, part 1: what the areas report on the metrics listener. Mail goes through the outbox
 * to a real SMTP server that accepts, refuses or defers each recipient; a campaign is launched
 * and cancelled over its routes; Stripe webhook deliveries are signed with the official SDK's
 * test helper. Each is scraped over HTTP before and after, and the parsed values compared.
 */

const STRIPE_KEY = 'sk_test_area_metrics';
const WEBHOOK_SECRET = 'whsec_area_metrics';
const OUTCOMES = ['sent', 'failed', 'retrying', 'skipped'];
const CAMPAIGN_STATES = ['queued', 'held', 'sending', 'sent', 'failed', 'skipped', 'cancelled'];
const WEBHOOK_TYPES = [
  'checkout.completed',
  'checkout.expired',
  'subscription.updated',
  'subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.payment_linked',
  'charge.refunded',
  'refund.recorded',
  'other',
];
const WEBHOOK_OUTCOMES = ['processed', 'duplicate', 'invalid_signature', 'invalid_event', 'error'];

let smtp: SmtpTestServer;
let t: TestApp;
let metricsPort: number;
let staff: TestUser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  metricsPort = await closedPort();
  t = await startTestApp({
    config: {
      metricsPort,
      smtpUrl: smtp.url,
      stripeSecretKey: STRIPE_KEY,
      stripeWebhookSecret: WEBHOOK_SECRET,
      // Nothing here calls Stripe's API: a closed port makes any call fail loudly.
      stripeApiBase: `http://127.0.0.1:${await closedPort()}`,
    },
  });
  staff = await createUser(t.db, ['email.read', 'email.write', 'email.send']);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** Every sample of `name`, as `label value` pairs of one label. */
const byLabel = (scraped: Scrape, name: string, label: string) =>
  Object.fromEntries(samplesOf(scraped, name).map((sample) => [sample.labels[label]!, sample.value]));

describe('mail outbox', () => {
  const outcomes = (scraped: Scrape) => byLabel(scraped, 'email_outbox_outcomes_total', 'outcome');

  it('counts sent, failed, retrying and skipped outcomes once recorded, and the depth due and deferred', async () => {
    const before = await scrape(metricsPort);
    expect(before.types.get('email_outbox_outcomes_total')).toBe('counter');
    expect(before.types.get('email_outbox_depth')).toBe('gauge');
    expect(Object.keys(outcomes(before)).sort()).toEqual([...OUTCOMES].sort());
    expect(byLabel(before, 'email_outbox_depth', 'state')).toEqual({ due: 0, deferred: 0 });

    const tag = randomUUID().slice(0, 8);
    const [kept, alsoKept, refused, deferred, suppressed] = ['a', 'b', 'refused', 'deferred', 'gone'].map(
      (name) => `${name}-${tag}@example.test`,
    );
    smtp.refuse = (recipient) =>
      recipient === refused
        ? { code: 550, message: 'No such mailbox' }
        : recipient === deferred
          ? { code: 451, message: 'Try again later' }
          : undefined;
    const id = await launchCampaign([kept!, alsoKept!, refused!, deferred!, suppressed!]);
    // Unsubscribed after the launch: its message is skipped when claimed.
    await t.db
      .insertInto('email_suppressions')
      .values({ email: suppressed!, reason: 'unsubscribed', source: 'link', message_id: null })
      .execute();

    const queued = await scrape(metricsPort);
    expect(byLabel(queued, 'email_outbox_depth', 'state')).toEqual({ due: 5, deferred: 0 });
    expect(outcomes(queued)).toEqual(outcomes(before));

    const round = await mailDispatcherFor(t.kernel).runOnce();
    expect(round).toMatchObject({ claimed: 4, skipped: 1, sent: 2, failed: 1, retrying: 1 });
    expect(smtp.received.map((mail) => mail.envelope.to[0]).sort()).toEqual([kept, alsoKept].sort());

    const after = await scrape(metricsPort);
    const delta = Object.fromEntries(OUTCOMES.map((o) => [o, outcomes(after)[o]! - outcomes(before)[o]!]));
    expect(delta).toEqual({ sent: 2, failed: 1, retrying: 1, skipped: 1 });
    // The deferred recipient's retry waits out its backoff.
    expect(byLabel(after, 'email_outbox_depth', 'state')).toEqual({ due: 0, deferred: 1 });

    // Held by a pause: no longer waiting.
    expect((await post(`${id}/pause`)).statusCode).toBe(200);
    expect(byLabel(await scrape(metricsPort), 'email_outbox_depth', 'state')).toEqual({ due: 0, deferred: 0 });
    expect((await post(`${id}/cancel`)).statusCode).toBe(200);
    smtp.refuse = () => undefined;
  });
});

describe('mail outbox, a sender that died mid-send', () => {
  it('counts the message failed once its lease ran out (never sent again)', async () => {
    const count = async () =>
      sampleValue(await scrape(metricsPort), 'email_outbox_outcomes_total', { outcome: 'failed' })!;
    const before = await count();
    const message = await t.db
      .insertInto('email_messages')
      .values({
        to_email: `lost-${randomUUID().slice(0, 8)}@example.test`,
        category: 'transactional',
        subject: 'Receipt',
        html: '<p>Receipt</p>',
        text: 'Receipt',
        status: 'sending',
        attempts: 1,
        lease_until: new Date(Date.now() - 60_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await mailDispatcherFor(t.kernel).runOnce()).toMatchObject({ interrupted: 1, claimed: 0 });
    expect(await count()).toBe(before + 1);
    const row = await t.db
      .selectFrom('email_messages')
      .select(['status', 'last_error'])
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', last_error: 'interrupted' });
  });
});

describe('campaign messages', () => {
  const states = (scraped: Scrape) => byLabel(scraped, 'email_campaign_messages', 'state');

  it('shows the messages of campaigns under way by state; a cancelled campaign leaves the gauge', async () => {
    const before = await scrape(metricsPort);
    expect(before.types.get('email_campaign_messages')).toBe('gauge');
    expect(Object.keys(states(before)).sort()).toEqual([...CAMPAIGN_STATES].sort());

    const tag = randomUUID().slice(0, 8);
    smtp.refuse = (recipient) =>
      recipient.startsWith('refused-')
        ? { code: 550, message: 'No such mailbox' }
        : recipient.startsWith('deferred-')
          ? { code: 451, message: 'Try again later' }
          : undefined;
    const id = await launchCampaign(['a', 'b', 'refused', 'deferred'].map((name) => `${name}-${tag}@example.test`));
    expect(states(await scrape(metricsPort))).toEqual({ ...states(before), queued: 4 });

    const round = await mailDispatcherFor(t.kernel).runOnce();
    expect(round).toMatchObject({ sent: 2, failed: 1, retrying: 1 });
    // Still sending: the deferred one waits for its retry.
    expect(states(await scrape(metricsPort))).toEqual({ ...states(before), sent: 2, failed: 1, queued: 1 });

    expect((await post(`${id}/pause`)).json()).toMatchObject({ status: 'paused' });
    expect(states(await scrape(metricsPort))).toEqual({ ...states(before), sent: 2, failed: 1, held: 1 });

    // Finished: its messages leave the gauge, which never grows with the history of finished campaigns.
    expect((await post(`${id}/cancel`)).json()).toMatchObject({ status: 'cancelled' });
    expect(states(await scrape(metricsPort))).toEqual(Object.fromEntries(CAMPAIGN_STATES.map((s) => [s, 0])));
    smtp.refuse = () => undefined;
  });
});

describe('payment webhook deliveries', () => {
  const deliveries = (scraped: Scrape, type: string, outcome: string) =>
    sampleValue(scraped, 'payment_webhook_deliveries_total', { type, outcome });

  it('counts each delivery by event type and outcome; types the service does not act on are "other"', async () => {
    const before = await scrape(metricsPort);
    expect(before.types.get('payment_webhook_deliveries_total')).toBe('counter');
    const series = samplesOf(before, 'payment_webhook_deliveries_total');
    expect(series).toHaveLength(WEBHOOK_TYPES.length * WEBHOOK_OUTCOMES.length);
    for (const sample of series) {
      expect(WEBHOOK_TYPES).toContain(sample.labels.type);
      expect(WEBHOOK_OUTCOMES).toContain(sample.labels.outcome);
      expect(sample.value).toBe(0);
    }

    const expired = checkoutExpired();
    expect((await deliver(expired)).statusCode).toBe(200);
    // A redelivery of the same event.
    expect((await deliver(expired)).statusCode).toBe(200);
    const unknownType = `customer.tax_id.created_${randomUUID().slice(0, 8)}`;
    expect((await deliver(stripeEvent(unknownType, { id: 'txi_1' }))).statusCode).toBe(200);
    const forged = await deliver(expired, 'whsec_someone_else');
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toEqual({ error: 'invalid_signature' });
    const unreadable = await deliver(stripeEvent('checkout.session.expired', { id: 'cs_1' }));
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.json()).toEqual({ error: 'invalid_event' });

    const after = await scrape(metricsPort);
    expect(deliveries(after, 'checkout.expired', 'processed')).toBe(1);
    expect(deliveries(after, 'checkout.expired', 'duplicate')).toBe(1);
    expect(deliveries(after, 'other', 'processed')).toBe(1);
    expect(deliveries(after, 'other', 'invalid_signature')).toBe(1);
    expect(deliveries(after, 'other', 'invalid_event')).toBe(1);
    const total = samplesOf(after, 'payment_webhook_deliveries_total').reduce((sum, s) => sum + s.value, 0);
    expect(total).toBe(5);
    // Bounded: the provider's own type names and event ids never become label values.
    const text = JSON.stringify(after.samples);
    expect(text).not.toContain(unknownType);
    expect(text).not.toContain(expired.id);
    expect(samplesOf(after, 'payment_webhook_deliveries_total')).toHaveLength(series.length);
    // Stored once each: the two read and signed ones.
    const stored = await t.db
      .selectFrom('billing_webhook_events')
      .select('event_id')
      .where('event_id', '=', expired.id)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it('counts a delivery whose handling failed as "error" (500, nothing stored), and its redelivery as processed', async () => {
    const expired = checkoutExpired();
    const count = async (outcome: string) =>
      deliveries(await scrape(metricsPort), 'checkout.expired', outcome) ?? Number.NaN;
    const before = { error: await count('error'), processed: await count('processed') };
    const storedIds = () =>
      t.db.selectFrom('billing_webhook_events').select('event_id').where('event_id', '=', expired.id).execute();
    // The database refuses to store this event (as a full disk or a lost connection would): the
    // transaction of the event and its effects fails as a whole.
    await sql`CREATE FUNCTION webhook_event_refused() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the database'; END $$`.execute(t.db);
    await sql`CREATE TRIGGER webhook_event_refused BEFORE INSERT ON billing_webhook_events FOR EACH ROW
      WHEN (NEW.event_id = ${sql.lit(expired.id)}) EXECUTE FUNCTION webhook_event_refused()`.execute(t.db);
    let failed: Awaited<ReturnType<typeof deliver>>;
    try {
      failed = await deliver(expired);
    } finally {
      await sql`DROP TRIGGER webhook_event_refused ON billing_webhook_events`.execute(t.db);
      await sql`DROP FUNCTION webhook_event_refused()`.execute(t.db);
    }
    // Stripe delivers again later what was not answered 2xx.
    expect(failed.statusCode).toBe(500);
    expect(await count('error')).toBe(before.error + 1);
    expect(await count('processed')).toBe(before.processed);
    expect(await storedIds()).toEqual([]);

    expect((await deliver(expired)).statusCode).toBe(200);
    expect(await count('error')).toBe(before.error + 1);
    expect(await count('processed')).toBe(before.processed + 1);
    expect(await storedIds()).toEqual([{ event_id: expired.id }]);
  });
});

const post = (path: string) =>
  t.request({ method: 'POST', url: `/v1/admin/email/campaigns/${path}`, token: staff.token });

/** A published marketing template, an audience of these addresses and a campaign of both, launched; its id. */
async function launchCampaign(members: string[]): Promise<string> {
  const key = `metrics-${randomUUID().slice(0, 8)}`;
  await publishedTemplate(t.db, key);
  return launchedCampaign(t, staff, { templateKey: key, members });
}

/** Stripe's event of an unpaid checkout (one this service never made) expiring. */
const checkoutExpired = () =>
  stripeEvent('checkout.session.expired', {
    id: `cs_${randomUUID().replaceAll('-', '')}`,
    mode: 'payment',
    payment_status: 'unpaid',
    customer: null,
    amount_total: null,
    currency: null,
    metadata: {},
  });

/** One delivery, signed at the moment it is sent (with the endpoint's secret unless told). */
const deliver = (event: StripeTestEvent, secret = WEBHOOK_SECRET) => deliverStripeEvent(t, event, secret);
