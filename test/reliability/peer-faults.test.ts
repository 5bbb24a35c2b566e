import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailDispatcher } from '../../src/modules/email/delivery/dispatcher.js';
import { RuntimeSimulator } from '../../src/runtime-sim/simulator.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { startGoTrueServer, type GoTrueServer } from '../helpers/gotrue-server.js';
import {
  makeSigningKey,
  signAsymmetric,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../helpers/jwks-server.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-server.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { TEST_JWT_SECRET } from '../helpers/tokens.js';
import { emptyQueue, literal, messageRow, queue } from '../modules/email/delivery/fixtures.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * Every outside service down, stalled or slow, through a TCP proxy between the service and it:
 * each route answers its documented code (502 `auth_service_error` for the identity provider,
 * 503 `unavailable` for the runtime, the payment provider and the JWKS) within a bounded time
 * and serves again once the peer is back; queued mail is retried later and sent once; keys
 * already fetched from the JWKS keep validating while it is down.
 *
 * Budgets under test (testConfig): identity 2 s, runtime connect 1 s and attempt 2 s. The bound
 * asserted is generous for a loaded CI machine, and far below "hangs".
 */

const BOUND_MS = 15_000;
const STRIPE_KEY = 'sk_test_reliability';

/** Runs `send` and returns its response with how long it took. */
async function timed<T>(send: () => Promise<T>): Promise<{ response: T; ms: number }> {
  const started = Date.now();
  const response = await send();
  return { response, ms: Date.now() - started };
}

function expectCode(response: { statusCode: number; json(): unknown }, status: number, error: string) {
  expect({ status: response.statusCode, error: (response.json() as { error?: string }).error }).toEqual({
    status,
    error,
  });
}

describe('outside services through a proxy', () => {
  let t: TestApp;
  let staff: TestUser;
  let gotrue: GoTrueServer;
  let stripe: StripeServer;
  let smtp: SmtpTestServer;
  let jwks: JwksServer;
  let signingKey: SigningKey;
  let simulator: RuntimeSimulator;
  const proxies: Record<'identity' | 'runtime' | 'stripe' | 'smtp' | 'jwks', TcpProxy> = {} as never;

  beforeAll(async () => {
    const serviceKey = `service-${randomUUID()}`;
    gotrue = await startGoTrueServer({ serviceKey, jwtSecret: TEST_JWT_SECRET });
    stripe = await startStripeServer({ secretKey: STRIPE_KEY });
    smtp = await startSmtpServer();
    signingKey = await makeSigningKey('ES256');
    jwks = await startJwksServer([signingKey]);
    simulator = new RuntimeSimulator({ apiKey: 'runtime-key-for-faults', pullDelayMs: 0 });
    const runtimeUrl = await simulator.listen('127.0.0.1', 0);
    const proxyTo = (url: string) => startTcpProxy({ port: Number(new URL(url).port) });
    proxies.identity = await proxyTo(gotrue.url);
    proxies.runtime = await proxyTo(runtimeUrl);
    proxies.stripe = await proxyTo(stripe.url);
    proxies.smtp = await proxyTo(smtp.url);
    proxies.jwks = await proxyTo(jwks.url);
    t = await startTestApp({
      config: {
        identityAdminUrl: proxies.identity.via(gotrue.url),
        identityServiceKey: serviceKey,
        runtimeUrl: proxies.runtime.via(runtimeUrl),
        runtimeApiKey: 'runtime-key-for-faults',
        stripeSecretKey: STRIPE_KEY,
        stripeWebhookSecret: 'whsec_reliability',
        stripeApiBase: proxies.stripe.via(stripe.url).replace(/\/$/, ''),
        smtpUrl: proxies.smtp.via(smtp.url),
        jwksUrl: proxies.jwks.via(jwks.url),
      },
    });
    staff = await createUser(t.db, ['users.read', 'runtime.read', 'billing.read', 'billing.write']);
  });
  afterAll(async () => {
    await t?.close();
    for (const proxy of Object.values(proxies)) await proxy.close();
    await Promise.all([gotrue?.close(), stripe?.close(), smtp?.close(), jwks?.close(), simulator?.close()]);
  });
  beforeEach(() => {
    for (const proxy of Object.values(proxies)) proxy.pass();
  });

  describe('identity provider (GoTrue): 502 auth_service_error', () => {
    const identity = async () => {
      const user = gotrue.addUser();
      await t.db
        .insertInto('users')
        .values({ id: user.id, email: `${user.id.slice(0, 8)}@example.test`, status: 'active' })
        .execute();
      return () => t.request({ method: 'GET', url: `/v1/admin/users/${user.id}/identity`, token: staff.token });
    };

    it.each([
      ['refusing connections', (proxy: TcpProxy) => proxy.refuse()],
      ['stalled', (proxy: TcpProxy) => proxy.blackhole()],
      ['slower than IDENTITY_TIMEOUT_MS', (proxy: TcpProxy) => proxy.latency(2_500)],
    ])('%s: 502 within the bound, then 200 once it is back', async (_name, fault) => {
      const read = await identity();
      expect((await read()).statusCode).toBe(200);
      fault(proxies.identity);
      proxies.identity.cut();
      const { response, ms } = await timed(read);
      expectCode(response, 502, 'auth_service_error');
      expect(ms).toBeLessThan(BOUND_MS);
      proxies.identity.pass();
      expect((await read()).statusCode).toBe(200);
    });
  });

  describe('Runtime service: 503 unavailable', () => {
    const nodes = () => t.request({ method: 'GET', url: '/v1/admin/runtime/nodes', token: staff.token });

    it.each([
      ['refusing connections', (proxy: TcpProxy) => proxy.refuse()],
      ['stalled', (proxy: TcpProxy) => proxy.blackhole()],
      ['slower than RUNTIME_TIMEOUT_MS', (proxy: TcpProxy) => proxy.latency(2_500)],
    ])('%s: 503 within the bound, then 200 once it is back', async (_name, fault) => {
      expect((await nodes()).statusCode).toBe(200);
      fault(proxies.runtime);
      proxies.runtime.cut();
      const { response, ms } = await timed(nodes);
      expectCode(response, 503, 'unavailable');
      expect(response.headers['retry-after']).toBeDefined();
      expect(ms).toBeLessThan(BOUND_MS);
      proxies.runtime.pass();
      expect((await nodes()).statusCode).toBe(200);
    });
  });

  describe('payment provider (Stripe SDK): 503 unavailable', () => {
    it("refusing connections: 503 after the SDK's retries, nothing stored; once back, one coupon at Stripe and here", async () => {
      const create = () =>
        t.request({
          method: 'POST',
          url: '/v1/admin/billing/coupons',
          token: staff.token,
          payload: { name: 'Fault coupon', percent_off: 10, duration: 'once' },
        });
      proxies.stripe.refuse();
      const { response, ms } = await timed(create);
      expectCode(response, 503, 'unavailable');
      expect(ms).toBeLessThan(BOUND_MS);
      expect(await t.db.selectFrom('billing_coupons').select('id').execute()).toEqual([]);
      expect(stripe.coupons.size).toBe(0);
      proxies.stripe.pass();
      expect((await create()).statusCode).toBe(201);
      expect(stripe.coupons.size).toBe(1);
      expect(await t.db.selectFrom('billing_coupons').select('id').execute()).toHaveLength(1);
    });
  });

  describe('SMTP server', () => {
    it('refusing connections: the message goes back to the queue; once back, a later round sends it exactly once', async () => {
      await emptyQueue(t.db);
      const to = `retry-${randomBytes(4).toString('hex')}@example.test`;
      const [id] = await queue(t.db, [literal(to)]);
      const dispatcher = createMailDispatcher(t.kernel);
      const now = new Date();
      proxies.smtp.refuse();
      expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 1, sent: 0, retrying: 1 });
      expect(await messageRow(t.db, id!)).toMatchObject({ status: 'queued', attempts: 1 });
      proxies.smtp.pass();
      // Not before its backoff; then once, and never again.
      expect(await dispatcher.runOnce(now)).toMatchObject({ claimed: 0 });
      expect(await dispatcher.runOnce(new Date(now.getTime() + 3_600_000))).toMatchObject({ claimed: 1, sent: 1 });
      expect(await dispatcher.runOnce(new Date(now.getTime() + 7_200_000))).toMatchObject({ claimed: 0 });
      expect(await messageRow(t.db, id!)).toMatchObject({ status: 'sent', attempts: 2 });
      expect(smtp.received.filter((mail) => mail.envelope.to.includes(to))).toHaveLength(1);
    });
  });

  describe('JWKS', () => {
    it('unreachable before any key was fetched: 503 unavailable (not 401); stalled: 503 within the bound; keys fetched keep validating while it is down', async () => {
      const token = await signAsymmetric(signingKey, { email: 'jwks@example.test' });
      const me = () => t.request({ method: 'GET', url: '/v1/me', token });

      proxies.jwks.refuse();
      const refused = await me();
      expectCode(refused, 503, 'unavailable');
      expect(refused.headers['retry-after']).toBe('5');

      proxies.jwks.pass();
      proxies.jwks.blackhole();
      const { response: stalled, ms } = await timed(me);
      expectCode(stalled, 503, 'unavailable');
      expect(ms).toBeLessThan(BOUND_MS);

      proxies.jwks.pass();
      expect((await me()).statusCode).toBe(200);
      const fetched = jwks.hits;
      proxies.jwks.refuse();
      for (let i = 0; i < 3; i += 1) expect((await me()).statusCode).toBe(200);
      const another = await signAsymmetric(signingKey, { email: 'other@example.test' });
      expect((await t.request({ method: 'GET', url: '/v1/me', token: another })).statusCode).toBe(200);
      expect(jwks.hits).toBe(fetched);
    });
  });
});
