import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPaymentProvider } from '../../../../src/adapters/payments/local.js';
import { sql } from 'kysely';
import { classifyDriverError, databaseFailureOf } from '../../../../src/db/failures.js';
import { startTestApp } from '../../../helpers/app.js';
import { closedPort } from '../../../helpers/ports.js';
import { failingQuery, type App } from './fixtures.js';

/**
 * Where each signal is counted, on real adapters and real requests: the counts an instance
 * flushes are what the monitor sums. Outside services are made to fail for real (closed ports).
 */

let t: App;
let broken: App;

beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (app, kernel) => {
      app.get('/test/boom', async () => {
        throw new Error('a bug');
      });
      app.get('/test/database-failure', async () => failingQuery.execute(kernel.db));
    },
  });
  const port = await closedPort();
  broken = (await startTestApp({
    database: await t.testDatabase!.openAnother(),
    config: {
      smtpUrl: `smtp://127.0.0.1:${port}`,
      stripeSecretKey: 'sk_test_incidents',
      stripeWebhookSecret: 'whsec_incidents',
      stripeApiBase: `http://127.0.0.1:${port}`,
    },
  })) as App;
});
afterAll(async () => {
  await broken.close();
  await t.close();
});

/** Flushes the instance's counts and reads back what it wrote. */
async function flushed(app: App) {
  await app.db.deleteFrom('incident_signal_samples').execute();
  await app.kernel.incidents.flush(new Date());
  const rows = await app.db
    .selectFrom('incident_signal_samples')
    .select(['instance_id', 'signal', 'total', 'failures'])
    .orderBy('signal')
    .execute();
  for (const row of rows) expect(row.instance_id).toBe(app.kernel.incidents.instanceId);
  return Object.fromEntries(rows.map((row) => [row.signal, [row.total, row.failures]]));
}

describe("this service's responses", () => {
  it('count toward http_5xx; 500s are failures, 503 refusals and /health are not; a failing database counts against it', async () => {
    t.kernel.signals.take();
    await t.request({ method: 'GET', url: '/health' });
    await t.request({ method: 'GET', url: '/v1/public/site' });
    expect((await t.request({ method: 'GET', url: '/test/boom' })).statusCode).toBe(500);
    // A failing database is 503 `unavailable` (docs/reliability.md): counted as a database error, not as a 5xx of ours.
    expect((await t.request({ method: 'GET', url: '/test/database-failure' })).statusCode).toBe(503);
    await t.db.updateTable('ops_panic_state').set({ level: 'lockdown', auto: false }).execute();
    await t.kernel.panic.refresh();
    expect((await t.request({ method: 'POST', url: '/v1/public/waitlist', payload: {} })).statusCode).toBe(503);
    await t.db.updateTable('ops_panic_state').set({ level: 'off', auto: false }).execute();
    await t.kernel.panic.refresh();
    expect(await flushed(t)).toEqual({ http_5xx: [4, 1], database_errors: [1, 1] });
    // Taken once: the next flush writes nothing.
    expect(await flushed(t)).toEqual({});
  });

  it('counts put back after a failed flush are written by the next one', async () => {
    t.kernel.signals.record('runtime', true);
    const restored = t.kernel.signals.take();
    t.kernel.signals.restore(restored);
    t.kernel.signals.record('runtime', false);
    expect(await flushed(t)).toEqual({ runtime: [2, 1] });
  });
});

describe('outside services', () => {
  it('mail: a server that cannot be reached is a failure', async () => {
    broken.kernel.signals.take();
    const message = {
      from: 'a@example.test',
      to: 'b@example.test',
      subject: 's',
      html: '<p>x</p>',
      text: 'x',
      headers: {},
      messageId: '<m@example.test>',
    };
    await expect(broken.kernel.mail.send(message)).rejects.toMatchObject({
      name: 'MailTransportError',
      permanent: false,
    });
    expect(await flushed(broken)).toEqual({ mail: [1, 1] });
  });

  it('payments: a provider that cannot be reached is a failure; a refusal is an answer; adapters keep their own type', async () => {
    broken.kernel.signals.take();
    await expect(broken.kernel.payments.createCustomer({ userId: 'u', email: null, name: null })).rejects.toMatchObject(
      { name: 'PaymentProviderError', kind: 'unavailable' },
    );
    expect(await flushed(broken)).toEqual({ payments: [1, 1] });

    t.kernel.signals.take();
    expect(t.kernel.payments).toBeInstanceOf(LocalPaymentProvider);
    const { id } = await t.kernel.payments.createCustomer({ userId: 'u', email: null, name: null });
    const checkout = {
      customerId: id,
      mode: 'payment' as const,
      providerPriceId: 'price_missing',
      quantity: 1,
      successUrl: 'http://x.test/ok',
      cancelUrl: 'http://x.test/no',
      metadata: {},
      idempotencyKey: 'k',
    };
    await expect(t.kernel.payments.createCheckout(checkout)).rejects.toMatchObject({ kind: 'refused' });
    expect(t.kernel.payments.dashboardUrl('customer', id)).toContain(id); // not counted: not a call to the provider
    expect(await flushed(t)).toEqual({ payments: [2, 0] });
  });

  it('runtime: health probes count, and only unreachable or 5xx answers are failures', async () => {
    t.kernel.signals.take();
    t.kernel.runtimeSimulator!.failNextRequests(1, 503);
    await expect(t.kernel.runtime.health()).rejects.toMatchObject({ name: 'RuntimeUnavailableError' });
    await t.kernel.runtime.health();
    await t.kernel.runtime.listNodes(); // staff reads are not the runtime's availability signal
    expect(await flushed(t)).toEqual({ runtime: [2, 1] });
  });
});

describe('database failures', () => {
  it('are classified where the database call is made: a failing database, not a wrong query', async () => {
    const failing = await failingQuery.execute(t.db).catch((error: unknown) => error);
    expect(databaseFailureOf(failing)).toBe('failing');
    const wrong = await sql`SELECT 1 / 0`.execute(t.db).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: '22012' });
    expect(databaseFailureOf(wrong)).toBeUndefined();
    // Inside a transaction too, and the error keeps its own code for the code that reads it.
    const inTransaction = await t.db
      .transaction()
      .execute((trx) => failingQuery.execute(trx))
      .catch((error: unknown) => error);
    expect(inTransaction).toMatchObject({ code: '53300' });
    expect(databaseFailureOf(inTransaction)).toBe('failing');
  });

  it('are never guessed from an error that did not come from a database call, whatever its code', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(databaseFailureOf(aborted)).toBeUndefined();
    t.kernel.signals.take();
    t.kernel.signals.recordRequestError(aborted);
    t.kernel.signals.recordRequestError(Object.assign(new Error('x'), { code: '08006' }));
    expect(t.kernel.signals.take().size).toBe(0);
  });

  it('tell the database failing from every pooled session being busy', () => {
    for (const code of ['08006', '53300', '57014', '57P01', '58030', 'XX000', 'ECONNREFUSED']) {
      expect(databaseFailureOf(classifyDriverError({ code }))).toBe('failing');
    }
    expect(databaseFailureOf(classifyDriverError(new Error('Connection terminated unexpectedly')))).toBe('failing');
    expect(databaseFailureOf(classifyDriverError(new Error('Query read timeout')))).toBe('failing');
    expect(databaseFailureOf(classifyDriverError(new Error('timeout exceeded when trying to connect')))).toBe('busy');
    for (const code of ['23505', '42P01', '22012', '40001', 'not_found'])
      expect(databaseFailureOf(classifyDriverError({ code }))).toBeUndefined();
    expect(databaseFailureOf(classifyDriverError('08006'))).toBeUndefined();
  });
});
