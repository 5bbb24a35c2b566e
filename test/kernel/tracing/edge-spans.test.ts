import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentProviderError } from '../../../src/adapters/payments/index.js';
import { JobScheduler } from '../../../src/modules/operations/scheduled-jobs/scheduler.js';
import { RuntimeSimulator } from '../../../src/runtime-sim/simulator.js';
import { createUser, eventually, startTestApp, type TestApp } from '../../helpers/app.js';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';
import { S3_TEST_CREDENTIALS, startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { startSmtpServer, type SmtpTestServer } from '../../helpers/smtp-server.js';
import { startStripeServer, stripeError, type StripeServer } from '../../helpers/stripe-server.js';

/**
 * Issue 32, part 2: the spans of the edges tracing.test.ts leaves out. One traced app calls a
 * real peer of each kind on loopback (the Stripe SDK against the test's Stripe server, an SMTP
 * server, s3rver, Redis, the runtime simulator behind a proxy that records what it is sent) and
 * runs scheduled jobs; the spans come back through an in-process OTLP/HTTP receiver.
 */

const STRIPE_KEY = 'sk_test_edge_spans';
const RUNTIME_KEY = 'runtime-key-edge-spans-0c1d2e';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const INTERNAL = 1;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The runtime simulator behind a loopback proxy that keeps each request's `traceparent`. */
interface RecordingRuntime {
  url: string;
  readonly traceparents: Array<{ path: string; traceparent: string | undefined }>;
  close(): Promise<void>;
}

async function startRecordingRuntime(): Promise<RecordingRuntime> {
  const simulator = new RuntimeSimulator({ apiKey: RUNTIME_KEY, pullDelayMs: 10 });
  const upstream = await simulator.listen('127.0.0.1', 0);
  const traceparents: RecordingRuntime['traceparents'] = [];
  const server: Server = createServer((request, response) => {
    const traceparent = request.headers.traceparent;
    traceparents.push({
      path: request.url ?? '',
      traceparent: Array.isArray(traceparent) ? traceparent[0] : traceparent,
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const forwarded = await fetch(new URL(request.url ?? '/', upstream), {
        method: request.method,
        headers: { authorization: request.headers.authorization ?? '', 'content-type': 'application/json' },
        body: chunks.length === 0 ? undefined : Buffer.concat(chunks),
      });
      response.writeHead(forwarded.status, { 'content-type': 'application/json' });
      response.end(await forwarded.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    traceparents,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await simulator.close();
    },
  };
}

let receiver: OtlpReceiver;
let stripe: StripeServer;
let smtp: SmtpTestServer;
let s3: S3TestServer;
let runtime: RecordingRuntime;
let t: TestApp;
let api: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stripe = await startStripeServer({ secretKey: STRIPE_KEY });
  smtp = await startSmtpServer();
  s3 = await startS3Server();
  runtime = await startRecordingRuntime();
  t = await startTestApp({
    config: {
      otelEndpoint: receiver.endpoint,
      stripeSecretKey: STRIPE_KEY,
      stripeWebhookSecret: 'whsec_edge_spans',
      stripeApiBase: stripe.url,
      smtpUrl: smtp.url,
      storageS3Bucket: s3.bucket,
      storageS3Endpoint: s3.endpoint,
      storageS3AccessKeyId: S3_TEST_CREDENTIALS.accessKeyId,
      storageS3SecretAccessKey: S3_TEST_CREDENTIALS.secretAccessKey,
      redisUrl: REDIS_URL,
      // Counters of this run only: another run's within the window would refuse this one's request.
      redisKeyPrefix: `edge-spans-${randomUUID()}:`,
      runtimeUrl: runtime.url,
      runtimeApiKey: RUNTIME_KEY,
    },
    traceExportDelayMs: 20,
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await runtime?.close();
  await s3?.close();
  await smtp?.close();
  await stripe?.close();
  await receiver?.close();
});

/** Runs `work` inside a span the test begins (through the kernel's provider): the parent its calls' spans name. */
async function underTestSpan(work: () => Promise<unknown>): Promise<{ traceId: string; spanId: string }> {
  return trace.getTracer('edge-spans-test').startActiveSpan('test', async (span) => {
    try {
      await work().catch(() => undefined);
    } finally {
      span.end();
    }
    return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  });
}

/** The exported spans of `traceId` named `name` (waits for at least one). */
async function spansNamed(traceId: string, name: string): Promise<ReceivedSpan[]> {
  return eventually(() => {
    const found = receiver.spans().filter((span) => span.traceId === traceId && span.name === name);
    expect(found.length).toBeGreaterThan(0);
    return found;
  });
}

describe('the runtime service', () => {
  it("receives a traceparent whose trace id is the request's, naming the call's client span", async () => {
    const operator = await createUser(t.db, ['runtime.read']);
    const traceId = hex(16);
    const response = await fetch(`${api}/v1/admin/runtime/nodes`, {
      headers: { authorization: `Bearer ${operator.token}`, traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect(response.status).toBe(200);
    const sent = runtime.traceparents.filter((request) => request.path.startsWith('/v1/nodes'));
    expect(sent).toHaveLength(1);
    const [version, sentTraceId, sentSpanId, flags] = sent[0]!.traceparent!.split('-');
    expect({ version, sentTraceId, flags }).toEqual({ version: '00', sentTraceId: traceId, flags: '01' });
    const [call] = await spansNamed(traceId, 'GET listNodes');
    expect(call!.spanId).toBe(sentSpanId);
    expect(call!.kind).toBe(SPAN_KIND.client);
  });
});

describe('Stripe', () => {
  it('makes a client span per call, child of the active span, with the answer status', async () => {
    const parent = await underTestSpan(() =>
      t.kernel.payments.createCustomer({ userId: randomUUID(), email: 'edge@example.test', name: null }),
    );
    const [call] = await spansNamed(parent.traceId, 'stripe createCustomer');
    expect(call).toMatchObject({ parentSpanId: parent.spanId, kind: SPAN_KIND.client, statusCode: 0 });
    expect(call!.attributes).toMatchObject({ 'peer.service': 'stripe', 'http.response.status_code': 200 });
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/customers' });
  });

  it('marks a refused call failed, with its status and error type', async () => {
    stripe.behave({
      kind: 'answer',
      status: 404,
      body: stripeError('invalid_request_error', 'No such customer', { code: 'resource_missing' }),
      times: 1,
    });
    let thrown: unknown;
    const parent = await underTestSpan(() =>
      t.kernel.payments.createPortalSession('cus_missing', 'https://example.test/back').catch((error: unknown) => {
        thrown = error;
      }),
    );
    expect(thrown).toBeInstanceOf(PaymentProviderError);
    const [call] = await spansNamed(parent.traceId, 'stripe createPortalSession');
    expect(call!.statusCode).toBe(2);
    expect(call!.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': 'resource_missing' });
  });
});

describe('SMTP', () => {
  it('makes a client span per message sent, naming the server, and fails it on a refused recipient', async () => {
    const message = (to: string) => ({
      from: 'platform@example.test',
      to,
      subject: 'Edge spans',
      html: '<p>hi</p>',
      text: 'hi',
      headers: {},
      messageId: `<${randomUUID()}@example.test>`,
    });
    const sent = await underTestSpan(() => t.kernel.mail.send(message('kept@example.test')));
    const [ok] = await spansNamed(sent.traceId, 'smtp send');
    expect(ok).toMatchObject({ parentSpanId: sent.spanId, kind: SPAN_KIND.client, statusCode: 0 });
    expect(ok!.attributes).toMatchObject({
      'peer.service': 'smtp',
      'server.address': '127.0.0.1',
      'server.port': smtp.port,
    });
    expect(smtp.received.some((mail) => mail.envelope.to.includes('kept@example.test'))).toBe(true);

    smtp.refuse = (recipient) =>
      recipient === 'gone@example.test' ? { code: 550, message: 'No such mailbox' } : undefined;
    const refused = await underTestSpan(() => t.kernel.mail.send(message('gone@example.test')));
    const [failed] = await spansNamed(refused.traceId, 'smtp send');
    expect(failed!.statusCode).toBe(2);
    expect(failed!.attributes['error.type']).toEqual(expect.any(String));
  });
});

describe('S3', () => {
  it('makes a client span per store call, naming the bucket, child of the active span', async () => {
    const key = `edge/${randomUUID()}.txt`;
    const grant = await t.kernel.storage.presignUpload({
      key,
      contentType: 'text/plain',
      size: 2,
      expiresAt: new Date(Date.now() + 600_000),
    });
    expect((await fetch(grant.url, { method: grant.method, headers: grant.headers, body: 'hi' })).status).toBe(200);
    const parent = await underTestSpan(async () => {
      expect(await t.kernel.storage.delete(key)).toBe(true);
      expect(await t.kernel.storage.head(key)).toBeNull();
    });
    const heads = await eventually(async () => {
      const found = await spansNamed(parent.traceId, 's3 head');
      expect(found).toHaveLength(2);
      return found;
    });
    const [deleted] = await spansNamed(parent.traceId, 's3 delete');
    for (const call of [...heads, deleted!]) {
      expect(call).toMatchObject({ parentSpanId: parent.spanId, kind: SPAN_KIND.client });
      expect(call.attributes).toMatchObject({ 'peer.service': 's3', 'aws.s3.bucket': s3.bucket });
    }
    expect(deleted!.statusCode).toBe(0);
    // The head before the delete found the object; the one after was S3's 404 (a client span's 4xx is failed).
    expect(heads.map((span) => [span.statusCode, span.attributes['error.type']])).toEqual([
      [0, undefined],
      [2, 'NotFound'],
    ]);
  });
});

describe('Redis', () => {
  it("records the rate limiter's command as a client span of the request's server span", async () => {
    const traceId = hex(16);
    const response = await fetch(`${api}/v1/public/waitlist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${hex(8)}-01` },
      body: JSON.stringify({ email: `edge-${randomUUID()}@example.test` }),
    });
    expect(response.status).toBe(202);
    const server = await eventually(() => {
      const found = receiver.spans().find((span) => span.traceId === traceId && span.kind === SPAN_KIND.server);
      expect(found).toBeDefined();
      return found!;
    });
    const [command] = await spansNamed(traceId, 'EVAL');
    expect(command).toMatchObject({ parentSpanId: server.spanId, kind: SPAN_KIND.client, statusCode: 0 });
    expect(command!.attributes['db.system.name']).toBe('redis');
  });
});

describe('scheduled jobs', () => {
  it('runs each job in a root span named after it, its outcome recorded, its statements its children', async () => {
    const scheduler = new JobScheduler({
      db: t.db,
      instanceId: 'edge-spans',
      handlers: {
        'expire-role-grants': t.kernel.jobs['expire-role-grants']!,
        'purge-event-outbox': async () => {
          throw new RangeError('the outbox is elsewhere');
        },
      },
      poll: false,
    });
    // Far enough ahead that every seeded job is due.
    await scheduler.runDueJobs(new Date(Date.now() + 400 * 24 * 3_600_000));

    const job = (key: string) =>
      eventually(() => {
        const found = receiver.spans().filter((span) => span.name === `job ${key}`);
        expect(found).toHaveLength(1);
        return found[0]!;
      });
    const ok = await job('expire-role-grants');
    expect(ok).toMatchObject({ parentSpanId: '', kind: INTERNAL, statusCode: 0 });
    expect(ok.attributes).toMatchObject({
      'job.key': 'expire-role-grants',
      'job.trigger': 'schedule',
      'job.outcome': 'ok',
    });
    const statements = await eventually(() => {
      const found = receiver.spans().filter((span) => span.traceId === ok.traceId && span.attributes['db.system.name']);
      expect(found.length).toBeGreaterThan(0);
      return found;
    });
    expect(statements.map((span) => span.name)).toContain('DELETE user_roles');
    for (const statement of statements) expect(statement.parentSpanId).toBe(ok.spanId);

    const failed = await job('purge-event-outbox');
    expect(failed).toMatchObject({ parentSpanId: '', kind: INTERNAL, statusCode: 2 });
    expect(failed.attributes).toMatchObject({ 'job.outcome': 'error', 'error.type': 'RangeError' });
    expect(failed.traceId).not.toBe(ok.traceId);
  });
});
