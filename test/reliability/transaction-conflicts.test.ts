import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalIdentityProvider } from '../../src/adapters/identity/local.js';
import type { LocalPaymentProvider } from '../../src/adapters/payments/local.js';
import type { PaymentEvent, ProviderSubscription } from '../../src/adapters/payments/index.js';
import { Fulfilment } from '../../src/modules/billing/checkout/fulfilment.js';
import { addCredits } from '../../src/modules/billing/credits/ledger.js';
import { createUser, startTestApp, type TestUser } from '../helpers/app.js';
import { testAuditAction } from '../helpers/audit-pictures.js';
import { publishedTemplate } from '../helpers/campaigns.js';
import { recordCheckout } from '../helpers/checkouts.js';
import { confirm, mailedCode, start } from '../helpers/account-deletion.js';
import { expectConsistentCredits, ledgerOf } from '../modules/billing/credits/fixtures.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * Deadlocks and serialization failures provoked for real on PostgreSQL, and interleavings that
 * only separate connections can produce: a test connection takes locks in the opposite order to a
 * request in flight (or holds a row a request needs while another commits), so the server itself
 * detects the deadlock or the conflict. PostgreSQL only (vitest.config.ts excludes this file on the
 * embedded database, which has one connection: nothing there ever waits on anything).
 */

let t: Awaited<ReturnType<typeof startTestApp>>;
let granter: TestUser;
/** The test's own connections, beside the service's pool. */
const clients: pg.Client[] = [];

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: t.testDatabase!.url! });
  await client.connect();
  clients.push(client);
  return client;
}

/** Until `count` other sessions of this database wait on a lock (the request under test is blocked where the test wants it). */
async function whenWaitingOnLocks(observer: pg.Client, count = 1): Promise<void> {
  let waiting = 0;
  await waitFor(
    async () => {
      waiting = await sessionsWaitingOnLocks(observer);
      return waiting >= count;
    },
    () => `${count} sessions waiting on a lock (${waiting} were)`,
  );
}

/** How many other sessions of this database wait on a lock now. */
async function sessionsWaitingOnLocks(observer: pg.Client): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]!.n;
}

/** Deadlocks PostgreSQL detected in this file's database so far. */
async function deadlocks(observer: pg.Client): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    'SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return rows[0]!.n;
}

/** Until the statistics show `count` deadlocks (they are flushed a moment after the transaction ends). */
async function whenDeadlocks(observer: pg.Client, count: number): Promise<void> {
  let counted = 0;
  await waitFor(
    async () => {
      counted = await deadlocks(observer);
      return counted >= count;
    },
    () => `${count} deadlocks counted (${counted} were)`,
    {
      intervalMs: 50,
    },
  );
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  granter = await createUser(t.db, ['billing.write']);
  const staff = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'tc-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values([
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
  const pack = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Pack', credits: 100 },
  });
  ids.pack = pack.json().id;
  const packPrice = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${ids.pack}/prices`,
    token: staff.token,
    payload: { providerPriceId: 'price_tc_pack', currency: 'usd', unitAmount: 1000 },
  });
  expect(packPrice.statusCode, packPrice.body).toBe(201);
  for (const [key, tier] of [
    ['gold', 'gold'],
    ['silver', 'silver'],
  ] as const) {
    const made = await t.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: { kind: 'plan', name: `${key} plan`, tierKey: tier },
    });
    ids[key] = made.json().id;
    const priced = await t.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${ids[key]}/prices`,
      token: staff.token,
      payload: { providerPriceId: `price_tc_${key}`, currency: 'usd', unitAmount: 1000, interval: 'month' },
    });
    expect(priced.statusCode, priced.body).toBe(201);
  }
});
afterAll(async () => {
  for (const client of clients) await client.end().catch(() => {});
  await t?.close();
});

describe('a credit write chosen as a deadlock victim', () => {
  it('is run again and answers 201, written once, when another connection locks the lot and then the user (the opposite order)', async () => {
    const player = await createUser(t.db);
    // A lot that has lapsed and not been expired yet: the grant locks the user, then expires it (touching the lot).
    const lot = await t.db.transaction().execute((trx) =>
      addCredits(trx, {
        userId: player.id,
        amount: 7,
        kind: 'grant',
        actorId: null,
        expiresAt: new Date(Date.now() + 60_000),
      }),
    );
    await t.db
      .updateTable('credit_lots')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('id', '=', lot.lotId)
      .execute();

    const other = await connect();
    const observer = await connect();
    await other.query('BEGIN');
    // This session waits long before checking for deadlocks, so the server picks the request's transaction as the victim.
    await other.query(`SET LOCAL deadlock_timeout = '20s'`);
    await other.query('SELECT id FROM credit_lots WHERE id = $1 FOR UPDATE', [lot.lotId]);

    const grant = t.request({
      method: 'POST',
      url: '/v1/admin/billing/credits/grant',
      token: granter.token,
      payload: { user_id: player.id, amount: 5, reason: 'Through a deadlock' },
    });
    await whenWaitingOnLocks(observer);
    // The request holds the user and waits for the lot; this waits for the user: a cycle the server breaks in about deadlock_timeout (1 s).
    const before = await deadlocks(observer);
    await other.query('SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE', [player.id]);
    await other.query('COMMIT');
    const response = await grant;
    await whenDeadlocks(observer, before + 1);

    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ balance: 5 });
    expect((await ledgerOf(t.db, player.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
      ['grant', 7],
      ['expiry', -7],
      ['grant', 5],
    ]);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(5);
  });
});

const fulfilment = () => new Fulfilment(t.kernel.write, 'local', t.kernel.log);
const tierOf = async (userId: string) =>
  (await t.db.selectFrom('users').select('tier').where('id', '=', userId).executeTakeFirstOrThrow()).tier;

function subscriptionEvent(
  type: 'subscription.updated' | 'subscription.deleted',
  subscription: Partial<ProviderSubscription> & { id: string; customerId: string; providerPriceId: string },
  userId: string,
  occurredAt: Date,
): PaymentEvent {
  return {
    type,
    eventId: `evt_${randomUUID()}`,
    occurredAt: occurredAt.toISOString(),
    subscription: {
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      canceledAt: null,
      metadata: { user_id: userId },
      ...subscription,
    },
  };
}

describe("two events about two of one user's subscriptions, held up together at the user row", () => {
  it("the old plan deleted and the new one created: the tier is the new plan's, not none (nor the old one's)", async () => {
    const player = await createUser(t.db);
    const base = { customerId: `cus_${randomUUID()}` };
    // Subscription events belong to the player whose customer this service made.
    await t.db
      .insertInto('billing_customers')
      .values({ user_id: player.id, provider: 'local', provider_customer_id: base.customerId })
      .execute();
    const gold = { ...base, id: `sub_${randomUUID()}`, providerPriceId: 'price_tc_gold' };
    const silver = { ...base, id: `sub_${randomUUID()}`, providerPriceId: 'price_tc_silver' };
    await fulfilment().process(subscriptionEvent('subscription.updated', gold, player.id, new Date()));
    expect(await tierOf(player.id)).toBe('gold');

    const other = await connect();
    const observer = await connect();
    await other.query('BEGIN');
    await other.query('SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE', [player.id]);
    const later = new Date(Date.now() + 60_000);
    const both = Promise.all([
      fulfilment().process(
        subscriptionEvent('subscription.deleted', { ...gold, status: 'canceled' }, player.id, later),
      ),
      fulfilment().process(subscriptionEvent('subscription.updated', silver, player.id, later)),
    ]);
    // Both have written their subscription row and wait for the user's.
    await whenWaitingOnLocks(observer, 2);
    await other.query('COMMIT');
    expect(await both).toEqual(['processed', 'processed']);
    expect(await tierOf(player.id)).toBe('silver');
  });
});

/**
 * Stops every transaction that inserts into `table` until `open()`: right after the insert (a
 * trigger waiting for a shared advisory lock the test holds), or at its commit, after everything it
 * read (a deferred constraint trigger). The interleavings where two events each wrote their half
 * and looked for the other's, made at will.
 */
async function gate(
  holder: pg.Client,
  table: string,
  key: number,
  when: 'after insert' | 'at commit' = 'after insert',
) {
  await holder.query(`CREATE OR REPLACE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock_shared(TG_ARGV[0]::bigint); RETURN NULL; END $$`);
  await holder.query(
    when === 'after insert'
      ? `CREATE TRIGGER test_gate_${key} AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION test_gate('${key}')`
      : `CREATE CONSTRAINT TRIGGER test_gate_${key} AFTER INSERT ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_gate('${key}')`,
  );
  await holder.query('SELECT pg_advisory_lock($1)', [key]);
  return {
    open: async () => {
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
    },
    /** Once the gated transactions ended (dropping a trigger waits for them). */
    remove: async () => {
      await holder.query(`DROP TRIGGER test_gate_${key} ON ${table}`);
    },
  };
}

/** Until a session waits on a lock while running a statement that contains `text`. */
async function whenStatementWaits(observer: pg.Client, text: string): Promise<void> {
  await waitFor(async () => {
    const { rows } = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
      [text],
    );
    return rows[0]!.n > 0;
  }, `a statement with ${text} waiting on a lock`);
}

describe("payment events that each write their half and look for the other's, at once", () => {
  it('a refund kept for a payment not recorded yet, and the payment recorded while the refund is not committed: the refund is recorded with its clawback', async () => {
    const player = await createUser(t.db);
    const intent = `pi_${randomUUID()}`;
    const checkoutId = await recordCheckout(t.db, {
      userId: player.id,
      provider: 'local',
      providerPriceId: 'price_tc_pack',
    });
    const holder = await connect();
    const observer = await connect();
    const refundKept = await gate(holder, 'billing_refunds_awaiting_payment', 9101);
    const paymentWritten = await gate(holder, 'billing_payments', 9102);
    const now = new Date().toISOString();
    const refund = fulfilment().process({
      type: 'refund.recorded',
      eventId: `evt_${randomUUID()}`,
      occurredAt: now,
      refund: {
        id: `re_${randomUUID()}`,
        paymentId: intent,
        amount: 300,
        currency: 'usd',
        status: 'succeeded',
        reason: null,
      },
    });
    await whenWaitingOnLocks(observer, 1);
    const payment = fulfilment().process({
      type: 'checkout.completed',
      eventId: `evt_${randomUUID()}`,
      occurredAt: now,
      checkoutId,
      customerId: `cus_${randomUUID()}`,
      mode: 'payment',
      paymentId: intent,
      subscriptionId: null,
      amountTotal: 1000,
      currency: 'usd',
      metadata: { user_id: player.id, product_id: ids.pack!, quantity: '1', credits: '100' },
    });
    await whenWaitingOnLocks(observer, 2);
    // The payment goes on and looks for kept refunds while the refund's transaction is still open.
    await paymentWritten.open();
    await Promise.race([payment, whenStatementWaits(observer, 'pg_advisory_xact_lock(hashtextextended')]);
    await refundKept.open();
    expect(await Promise.all([refund, payment])).toEqual(['processed', 'processed']);
    await Promise.all([refundKept.remove(), paymentWritten.remove()]);

    const row = await t.db
      .selectFrom('billing_payments')
      .select(['id', 'amount_refunded', 'status'])
      .where('provider_payment_id', '=', intent)
      .executeTakeFirstOrThrow();
    expect({ refunded: Number(row.amount_refunded), status: row.status }).toEqual({
      refunded: 300,
      status: 'partially_refunded',
    });
    expect(
      await t.db.selectFrom('billing_refunds').select('credits_clawed_back').where('payment_id', '=', row.id).execute(),
    ).toEqual([{ credits_clawed_back: 30 }]);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(70);
  });

  it('an invoice and the link naming its payment, each written and looking for the other at once: the payment is recorded', async () => {
    const player = await createUser(t.db);
    const customer = `cus_${randomUUID()}`;
    await t.db
      .insertInto('billing_customers')
      .values({ user_id: player.id, provider: 'local', provider_customer_id: customer })
      .execute();
    const invoiceId = `in_${randomUUID()}`;
    const intent = `pi_${randomUUID()}`;
    const holder = await connect();
    const observer = await connect();
    // Each is held at its commit, after looking for the other half.
    const invoiceWritten = await gate(holder, 'billing_invoices', 9103, 'at commit');
    const linkWritten = await gate(holder, 'billing_invoice_payments', 9104, 'at commit');
    const now = new Date().toISOString();
    const events = Promise.all([
      fulfilment().process({
        type: 'invoice.paid',
        eventId: `evt_${randomUUID()}`,
        occurredAt: now,
        paymentId: null,
        invoice: {
          id: invoiceId,
          customerId: customer,
          subscriptionId: null,
          status: 'paid',
          currency: 'usd',
          amountDue: 1000,
          amountPaid: 1000,
          hostedUrl: null,
          periodStart: null,
          periodEnd: null,
          createdAt: now,
        },
      }),
      fulfilment().process({
        type: 'invoice.payment_linked',
        eventId: `evt_${randomUUID()}`,
        occurredAt: now,
        link: { invoiceId, paymentId: intent, amount: 1000, currency: 'usd' },
      }),
    ]);
    await whenWaitingOnLocks(observer, 2);
    await Promise.all([invoiceWritten.open(), linkWritten.open()]);
    expect(await events).toEqual(['processed', 'processed']);
    await Promise.all([invoiceWritten.remove(), linkWritten.remove()]);
    expect(
      await t.db
        .selectFrom('billing_payments')
        .select(['provider_payment_id', 'provider_invoice_id'])
        .where('user_id', '=', player.id)
        .execute(),
    ).toEqual([{ provider_payment_id: intent, provider_invoice_id: invoiceId }]);
  });

  it("a renewal payment recorded while its subscription's row is written, each looking for the other: the payment gets the plan", async () => {
    const player = await createUser(t.db);
    const customer = `cus_${randomUUID()}`;
    await t.db
      .insertInto('billing_customers')
      .values({ user_id: player.id, provider: 'local', provider_customer_id: customer })
      .execute();
    const subscription = `sub_${randomUUID()}`;
    const invoiceId = `in_${randomUUID()}`;
    const intent = `pi_${randomUUID()}`;
    const now = new Date().toISOString();
    // The invoice first (no subscription row yet), then its payment and the subscription at once.
    await fulfilment().process({
      type: 'invoice.paid',
      eventId: `evt_${randomUUID()}`,
      occurredAt: now,
      paymentId: null,
      invoice: {
        id: invoiceId,
        customerId: customer,
        subscriptionId: subscription,
        status: 'paid',
        currency: 'usd',
        amountDue: 1000,
        amountPaid: 1000,
        hostedUrl: null,
        periodStart: null,
        periodEnd: null,
        createdAt: now,
      },
    });
    const holder = await connect();
    const observer = await connect();
    const paymentWritten = await gate(holder, 'billing_payments', 9105, 'at commit');
    const subscriptionWritten = await gate(holder, 'billing_subscriptions', 9106, 'at commit');
    const events = Promise.all([
      fulfilment().process({
        type: 'invoice.payment_linked',
        eventId: `evt_${randomUUID()}`,
        occurredAt: now,
        link: { invoiceId, paymentId: intent, amount: 1000, currency: 'usd' },
      }),
      fulfilment().process(
        subscriptionEvent(
          'subscription.updated',
          { id: subscription, customerId: customer, providerPriceId: 'price_tc_gold' },
          player.id,
          new Date(now),
        ),
      ),
    ]);
    await whenWaitingOnLocks(observer, 2);
    await Promise.all([paymentWritten.open(), subscriptionWritten.open()]);
    expect(await events).toEqual(['processed', 'processed']);
    await Promise.all([paymentWritten.remove(), subscriptionWritten.remove()]);
    expect(
      await t.db
        .selectFrom('billing_payments')
        .select(['provider_payment_id', 'product_id'])
        .where('user_id', '=', player.id)
        .execute(),
    ).toEqual([{ provider_payment_id: intent, product_id: ids.gold }]);
  });
});

describe("an account deleted while its subscription's event is applied", () => {
  // Which of the two PostgreSQL picks: the first to check for a deadlock, deadlock_timeout (1 s)
  // after it began waiting. The event waits first; closing the cycle at once makes it the victim,
  // closing it after that second (the event's check found nothing then) makes the deletion the victim.
  it.each([
    ['the event', 0],
    ['the deletion', 1_300],
  ])(
    'the deletion (user, then subscription) and the event (subscription, then user) deadlock; %s, picked by PostgreSQL, is run again and both succeed',
    async (_victim, pauseMs) => {
      // The deletion asks the identity provider to disable sign-in after checking the code and before
      // its transaction: there a connection of the test locks the deletion request, so the deletion
      // stops between its two locks (it has the user, waits there, then takes the subscription).
      // An instance of its own for it (its local payment provider holds the subscription it cancels).
      let beforeDeleting = async () => {};
      const identity = new LocalIdentityProvider();
      identity.banUser = () => beforeDeleting();
      const deleter = await startTestApp({ database: await t.testDatabase!.openAnother({ pooled: true }), identity });
      const player = await createUser(t.db);
      const checkout = await deleter.request({
        method: 'POST',
        url: '/v1/me/billing/checkout-session',
        token: player.token,
        payload: {
          productId: ids.gold,
          successUrl: 'https://game.example/done',
          cancelUrl: 'https://game.example/cancel',
        },
      });
      expect(checkout.statusCode, checkout.body).toBe(200);
      for (const event of (deleter.kernel.payments as LocalPaymentProvider).payCheckout(checkout.json().id))
        await fulfilment().process(event);
      const row = await t.db
        .selectFrom('billing_subscriptions')
        .selectAll()
        .where('user_id', '=', player.id)
        .executeTakeFirstOrThrow();
      expect(await tierOf(player.id)).toBe('gold');
      expect((await start(t, player)).statusCode).toBe(202);
      const code = await mailedCode(t, player.id);

      const other = await connect();
      const observer = await connect();
      await other.query('BEGIN');
      beforeDeleting = async () => {
        await other.query('SELECT user_id FROM account_deletion_requests WHERE user_id = $1 FOR UPDATE', [player.id]);
      };
      const before = await deadlocks(observer);
      const deletion = confirm(deleter, player, code).finally(() => deleter.close());
      await whenWaitingOnLocks(observer, 1);
      // A provider event about the subscription: it locks the subscription row, then waits for the user.
      const event = fulfilment().process(
        subscriptionEvent(
          'subscription.updated',
          {
            id: row.provider_subscription_id,
            customerId: row.provider_customer_id!,
            providerPriceId: 'price_tc_gold',
            currentPeriodEnd: row.current_period_end?.toISOString() ?? null,
          },
          player.id,
          new Date(Date.now() - 1_000),
        ),
      );
      await whenWaitingOnLocks(observer, 2);
      // PostgreSQL's deadlock_timeout decides the victim: only time spent waiting moves it.
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      await other.query('COMMIT');

      const [deleted, processed] = await Promise.all([deletion, event]);
      await whenDeadlocks(observer, before + 1);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(processed).toBe('processed');
      const after = await t.db
        .selectFrom('billing_subscriptions')
        .select(['status', 'cancel_at_period_end'])
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      // The deletion's cancellation (newer than the event) stands.
      expect(after).toEqual({ status: 'active', cancel_at_period_end: true });
      expect(
        (await t.db.selectFrom('users').select('status').where('id', '=', player.id).executeTakeFirstOrThrow()).status,
      ).toBe('deleted');
    },
  );
});

describe('a broadcast under REPEATABLE READ', () => {
  let staff: TestUser;
  beforeAll(async () => {
    staff = await createUser(t.db, ['roles.write', 'roles.assign', 'users.read', 'email.send', 'announcements.write']);
    await publishedTemplate(t.db, 'tc-news', { category: 'transactional', html: '<p>News</p>', text: 'News' });
  });

  async function roleWithHolders(key: string, count: number): Promise<TestUser[]> {
    const made = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      token: staff.token,
      payload: { key, name: key, permissions: ['users.read'] },
    });
    expect(made.statusCode, made.body).toBe(201);
    const users = await Promise.all(Array.from({ length: count }, () => createUser(t.db)));
    const granted = await t.request({
      method: 'POST',
      url: '/v1/admin/users/bulk/roles',
      token: staff.token,
      payload: { user_ids: users.map((u) => u.id), role_key: key, action: 'grant' },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    return users;
  }

  const broadcast = (role: string, key?: string) =>
    t.request({
      method: 'POST',
      url: '/v1/admin/notifications/broadcast',
      token: staff.token,
      payload: {
        segment: { role },
        notification: { title: 'Hello', kind: 'info' },
        email: { template_key: 'tc-news', vars: {} },
      },
      ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
    });

  it('the role granted to more users between its count and its writes: counted, notified and mailed are the same users, once', async () => {
    const holders = await roleWithHolders('tc-broadcast-a', 5);
    const newcomers = await Promise.all(Array.from({ length: 4 }, () => createUser(t.db)));
    const key = `tc-${randomUUID()}`;
    const other = await connect();
    const observer = await connect();
    // Holds the broadcast between its count and its writes: the same idempotency key, inserted and not committed, makes its own insert wait.
    await other.query('BEGIN');
    await other.query(
      `INSERT INTO notification_broadcasts (segment, recipients, created_by, idempotency_key, request_fingerprint) VALUES ('{}', 1, $1, $2, 'x')`,
      [staff.id, key],
    );
    const sent = broadcast('tc-broadcast-a', key);
    await whenWaitingOnLocks(observer, 1);
    const granted = await t.request({
      method: 'POST',
      url: '/v1/admin/users/bulk/roles',
      token: staff.token,
      payload: { user_ids: newcomers.map((u) => u.id), role_key: 'tc-broadcast-a', action: 'grant' },
    });
    expect(granted.statusCode).toBe(200);
    await other.query('ROLLBACK');
    const response = await sent;

    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ recipients: 5, notification: { created: 5 }, email: { queued: 5 } });
    const row = await t.db
      .selectFrom('notification_broadcasts')
      .select('id')
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow();
    const mailed = (
      await t.db.selectFrom('email_messages').select('user_id').where('broadcast_id', '=', row.id).execute()
    )
      .map((r) => r.user_id)
      .sort();
    const notified = (
      await t.db
        .selectFrom('notification_recipients as r')
        .innerJoin('notifications as n', 'n.id', 'r.notification_id')
        .select('r.user_id')
        .where('n.broadcast_id', '=', row.id)
        .execute()
    )
      .map((r) => r.user_id)
      .sort();
    expect(mailed).toEqual(holders.map((u) => u.id).sort());
    expect(notified).toEqual(mailed);
  });

  it('its template changed after its snapshot (a serialization failure): run again, 200, sent once', async () => {
    const holders = await roleWithHolders('tc-broadcast-b', 3);
    const other = await connect();
    const observer = await connect();
    await other.query('BEGIN');
    await other.query(`UPDATE email_templates SET updated_at = now() WHERE key = 'tc-news'`);
    const sent = broadcast('tc-broadcast-b');
    // It has its snapshot and waits to share-lock the template row; committing the change now makes that lock a conflict.
    await whenWaitingOnLocks(observer, 1);
    await other.query('COMMIT');
    const response = await sent;
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ recipients: 3, notification: { created: 3 }, email: { queued: 3 } });
    const rows = await t.db
      .selectFrom('notification_broadcasts')
      .select('id')
      .where(sql<boolean>`segment->>'role' = 'tc-broadcast-b'`)
      .execute();
    expect(rows).toHaveLength(1);
    expect(
      await t.db.selectFrom('email_messages').select('user_id').where('broadcast_id', '=', rows[0]!.id).execute(),
    ).toHaveLength(holders.length);
  });
});

describe('audited writes sharing a slot of the kept audit counts (migration 0040)', () => {
  /** Two sessions of this database whose backends add to the same slot (backend id mod 16): among 17, two must. */
  async function twoSessionsOfOneSlot(): Promise<[pg.Client, pg.Client]> {
    const bySlot = new Map<number, pg.Client>();
    for (let n = 0; n < 17; n += 1) {
      const client = await connect();
      const { rows } = await client.query<{ slot: number }>('SELECT pg_backend_pid() % 16 AS slot');
      const other = bySlot.get(rows[0]!.slot);
      if (other !== undefined) return [other, client];
      bySlot.set(rows[0]!.slot, client);
    }
    throw new Error('17 sessions in 16 slots without two sharing one');
  }

  it('two transactions auditing two actions in opposite orders both commit: no deadlock, and the totals count both', async () => {
    const [a, b] = await twoSessionsOfOneSlot();
    const observer = await connect();
    const deadlocksBefore = await deadlocks(observer);
    const audit = (client: pg.Client, action: string) =>
      client.query(`INSERT INTO audit_log (action, target_type, summary) VALUES ($1, 'slot-test', '{}')`, [
        testAuditAction(action),
      ]);
    // a writes alpha; b writes beta (at once, or waiting behind a); then a writes beta and b alpha.
    await a.query('BEGIN');
    await audit(a, 'slot.alpha');
    await b.query('BEGIN');
    let bFirstDone = false;
    const bFirst = audit(b, 'slot.beta').finally(() => (bFirstDone = true));
    bFirst.catch(() => {}); // its outcome is read below
    await waitFor(
      async () => bFirstDone || (await sessionsWaitingOnLocks(observer)) > 0,
      "b's first write done or waiting on a lock",
    );
    const outcomes = await Promise.allSettled([
      audit(a, 'slot.beta').then(() => a.query('COMMIT')),
      bFirst.then(() => audit(b, 'slot.alpha')).then(() => b.query('COMMIT')),
    ]);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'committed'))).toEqual([
      'committed',
      'committed',
    ]);
    expect(await deadlocks(observer)).toBe(deadlocksBefore);
    const reader = await createUser(t.db, ['audit.read']);
    const listed = await t.request({
      method: 'GET',
      url: '/v1/admin/audit?per_page=1&action=slot.*',
      token: reader.token,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().meta.total).toBe(4);
  });
});
