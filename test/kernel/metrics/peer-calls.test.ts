import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentProviderError } from '../../../src/adapters/payments/index.js';
import { RuntimeRefusedError } from '../../../src/adapters/runtime/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { TEST_JWT_SECRET } from '../../helpers/tokens.js';
import { startGoTrueServer, type GoTrueServer } from '../../helpers/gotrue-server.js';
import { makeSigningKey, signAsymmetric, startJwksServer, type JwksServer } from '../../helpers/jwks-server.js';
import { closedPort } from '../../helpers/ports.js';
import { samplesOf, scrape, type Scrape } from './scrape.js';

/**
 * Issue 32, part 1: calls to the identity provider (GoTrue on loopback, and the JWKS), the
 * runtime service (the embedded simulator, over loopback HTTP) and the payment provider (the local
 * one), each made through the kernel's own adapters, then scraped over HTTP and the text format
 * parsed: `peer_call_duration_seconds` by peer, operation and outcome.
 */

const SERVICE_KEY = 'gotrue-service-key-peer-calls';
const METRIC = 'peer_call_duration_seconds';
const IDENTITY_TIMEOUT_MS = 300;

let gotrue: GoTrueServer;
let jwks: JwksServer;
let key: Awaited<ReturnType<typeof makeSigningKey>>;
let t: TestApp;
let metricsPort: number;

beforeAll(async () => {
  gotrue = await startGoTrueServer({ serviceKey: SERVICE_KEY, jwtSecret: TEST_JWT_SECRET });
  key = await makeSigningKey('ES256');
  jwks = await startJwksServer([key]);
  metricsPort = await closedPort();
  t = await startTestApp({
    config: {
      metricsPort,
      identityAdminUrl: gotrue.url,
      identityServiceKey: SERVICE_KEY,
      identityTimeoutMs: IDENTITY_TIMEOUT_MS,
      jwksUrl: jwks.url,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await jwks?.close();
  await gotrue?.close();
});

/** How many calls, and their seconds summed, of one peer's operation and outcome. */
function calls(scraped: Scrape, peer: string, operation: string, outcome: string) {
  const labels = { peer, operation, outcome };
  const value = (name: string) => samplesOf(scraped, name, labels)[0]?.value ?? 0;
  return { count: value(`${METRIC}_count`), sum: value(`${METRIC}_sum`) };
}

/** The scrape's every label value of the metric's series, to check they stay bounded. */
function labelValues(scraped: Scrape, label: string): string[] {
  return [...new Set(samplesOf(scraped, `${METRIC}_count`).map((sample) => sample.labels[label]!))].sort();
}

describe('peer_call_duration_seconds', () => {
  it('is a histogram with no series before any call', async () => {
    const scraped = await scrape(metricsPort);
    expect(scraped.types.get(METRIC)).toBe('histogram');
    expect(samplesOf(scraped, `${METRIC}_count`)).toEqual([]);
  });

  it('measures identity calls by operation and outcome: ok, refused (404), failed (500), unreachable (timeout)', async () => {
    const user = gotrue.addUser();
    const before = await scrape(metricsPort);

    await expect(t.kernel.identity.fetchUser(user.id)).resolves.not.toBeNull();
    // An unknown account is GoTrue's 404: an answer, counted as refused (twice, to tell it from the 500).
    await expect(t.kernel.identity.fetchUser(randomUUID())).resolves.toBeNull();
    await expect(t.kernel.identity.fetchUser(randomUUID())).resolves.toBeNull();
    gotrue.behave({ kind: 'answer', status: 500, body: { code: 500, msg: 'database down' } });
    await expect(t.kernel.identity.fetchUser(user.id)).rejects.toThrow();
    gotrue.behave({ kind: 'hang' });
    await expect(t.kernel.identity.fetchUser(user.id)).rejects.toThrow();
    gotrue.behave({ kind: 'normal' });

    const after = await scrape(metricsPort);
    const delta = (outcome: string) =>
      calls(after, 'identity', 'fetchUser', outcome).count - calls(before, 'identity', 'fetchUser', outcome).count;
    expect({
      ok: delta('ok'),
      refused: delta('refused'),
      failed: delta('failed'),
      unreachable: delta('unreachable'),
    }).toEqual({ ok: 1, refused: 2, failed: 1, unreachable: 1 });
    // The timed-out call waited its whole time limit.
    const unreachable = calls(after, 'identity', 'fetchUser', 'unreachable');
    expect(unreachable.sum).toBeGreaterThanOrEqual((IDENTITY_TIMEOUT_MS - 20) / 1_000);
    expect(unreachable.sum).toBeLessThan(5);
    // The bucket a 300 ms wait falls in counts it, the one below does not.
    const bucket = (le: string) =>
      samplesOf(after, `${METRIC}_bucket`, { peer: 'identity', operation: 'fetchUser', outcome: 'unreachable', le })[0]
        ?.value;
    expect(bucket('0.25')).toBe(0);
    expect(bucket('0.5')).toBe(1);
  });

  it('measures the key set fetch of the identity provider', async () => {
    const before = calls(await scrape(metricsPort), 'identity', 'fetchKeySet', 'ok').count;
    const token = await signAsymmetric(key);
    await t.kernel.tokens.verify(token).catch(() => undefined);
    expect(jwks.hits).toBeGreaterThan(0);
    expect(calls(await scrape(metricsPort), 'identity', 'fetchKeySet', 'ok').count).toBe(before + 1);
  });

  it('measures runtime calls per attempt: a health probe ok, an unknown session refused', async () => {
    const before = await scrape(metricsPort);
    await t.kernel.runtime.health();
    await expect(t.kernel.runtime.getSession(randomUUID())).rejects.toBeInstanceOf(RuntimeRefusedError);
    const after = await scrape(metricsPort);
    const delta = (operation: string, outcome: string) =>
      calls(after, 'runtime', operation, outcome).count - calls(before, 'runtime', operation, outcome).count;
    expect(delta('health', 'ok')).toBe(1);
    expect(delta('getSession', 'refused')).toBe(1);
    expect(delta('getSession', 'ok')).toBe(0);
  });

  it('measures payment provider calls by method: a customer made, a refund of an unknown payment refused', async () => {
    const before = await scrape(metricsPort);
    await t.kernel.payments.createCustomer({ userId: randomUUID(), email: null, name: null });
    const refused = t.kernel.payments.refundPayment({ paymentId: 'pi_missing', idempotencyKey: randomUUID() });
    await expect(refused).rejects.toBeInstanceOf(PaymentProviderError);
    const after = await scrape(metricsPort);
    const delta = (operation: string, outcome: string) =>
      calls(after, 'payments', operation, outcome).count - calls(before, 'payments', operation, outcome).count;
    expect(delta('createCustomer', 'ok')).toBe(1);
    expect(delta('refundPayment', 'refused')).toBe(1);
  });

  it('labels only peers, operation names and outcome classes: never an id or a URL', async () => {
    const scraped = await scrape(metricsPort);
    expect(labelValues(scraped, 'peer')).toEqual(['identity', 'payments', 'runtime']);
    expect(
      labelValues(scraped, 'outcome').every((value) => ['ok', 'refused', 'failed', 'unreachable'].includes(value)),
    ).toBe(true);
    for (const operation of labelValues(scraped, 'operation')) expect(operation).toMatch(/^[a-z][A-Za-z]*$/);
  });
});

describe('with METRICS_PORT unset', () => {
  it('hands the adapters no meter: the calls are made and nothing is measured', async () => {
    const off = await startTestApp();
    try {
      expect(off.kernel.metrics).toBeUndefined();
      await off.kernel.runtime.health();
      await expect(
        off.kernel.payments.createCustomer({ userId: randomUUID(), email: null, name: null }),
      ).resolves.toMatchObject({ id: expect.any(String) });
    } finally {
      await off.close();
    }
  });
});
