import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { JWKS_REFETCH_COOLDOWN_MS } from '../../../src/kernel/tokens.js';
import { tracesUrl } from '../../../src/kernel/tracing/tracing.js';
import { captureLog, type CapturedLog } from '../../helpers/captured-log.js';
import { makeSigningKey, signAsymmetric, startJwksServer, type JwksServer } from '../../helpers/jwks-server.js';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';

/**
 * Issue 32, part 2: OpenTelemetry traces. The real app serves real HTTP on loopback with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an in-process OTLP/HTTP receiver, which collects the
 * JSON the exporter posts; the spans and their parent links are checked there.
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A request's server span, found by the trace its `traceparent` began. */
function serverSpanOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan {
  const found = spans.filter((span) => span.traceId === traceId && span.kind === SPAN_KIND.server);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let receiver: OtlpReceiver;
  let jwks: JwksServer;
  let logged: CapturedLog;
  let t: TestApp;
  let api: string;
  let staff: TestUser;
  let key: Awaited<ReturnType<typeof makeSigningKey>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    key = await makeSigningKey('ES256');
    jwks = await startJwksServer([key]);
    logged = captureLog({ traced: true });
    t = await startTestApp({
      config: { otelEndpoint: receiver.endpoint, otelServiceName: 'platform-api-test', jwksUrl: jwks.url },
      log: logged.log,
      traceExportDelayMs: 20,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    staff = await createUser(t.db, ['users.read']);
  });

  afterAll(async () => {
    await t?.close();
    await jwks?.close();
    await receiver?.close();
  });

  /** A GET with a `traceparent` of a trace the test begins: the ids to find its spans by. */
  async function tracedGet(path: string, token: string) {
    const traceId = hex(16);
    const parentSpanId = hex(8);
    const response = await fetch(`${api}${path}`, {
      headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${parentSpanId}-01` },
    });
    return { response, traceId, parentSpanId };
  }

  it('exports a server span per request, named by method and route pattern, child of the incoming traceparent', async () => {
    const { response, traceId, parentSpanId } = await tracedGet(`/v1/admin/users/${staff.id}`, staff.token);
    expect(response.status).toBe(200);
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    expect(server.name).toBe('GET /v1/admin/users/:id');
    expect(server.parentSpanId).toBe(parentSpanId);
    expect(server.serviceName).toBe('platform-api-test');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/admin/users/:id',
      'http.response.status_code': 200,
      'url.path': `/v1/admin/users/${staff.id}`,
      'client.address': '127.0.0.1',
    });
    expect(server.statusCode).toBe(0);
    expect(receiver.posts()[0]).toEqual({ path: '/v1/traces', contentType: 'application/json' });
  });

  it('begins a trace of its own for a request without traceparent; a 4xx leaves the span unfailed', async () => {
    const before = receiver.spans().length;
    const response = await fetch(`${api}/v1/admin/users/not-a-uuid`, {
      headers: { authorization: `Bearer ${staff.token}` },
    });
    expect(response.status).toBe(400);
    const server = await eventually(() => {
      const found = receiver
        .spans()
        .slice(before)
        .find((span) => span.kind === SPAN_KIND.server);
      expect(found).toBeDefined();
      return found!;
    });
    expect(server.parentSpanId).toBe('');
    expect(server.name).toBe('GET /v1/admin/users/:id');
    expect(server.attributes['http.response.status_code']).toBe(400);
    // A refusal of the client's is not the server failing.
    expect(server.statusCode).toBe(0);
  });

  it('names a request no route matched by its method alone', async () => {
    const { response, traceId } = await tracedGet(`/v1/no-such-route/${hex(4)}`, staff.token);
    expect(response.status).toBe(404);
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    expect(server.name).toBe('GET');
    expect(server.attributes['http.route']).toBeUndefined();
  });

  it("records the request's statements as children of its server span, parameters never their values", async () => {
    const { response, traceId } = await tracedGet(`/v1/admin/users/${staff.id}`, staff.token);
    expect(response.status).toBe(200);
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    const statements = await eventually(() => {
      const found = receiver
        .spans()
        .filter((span) => span.traceId === traceId && span.attributes['db.system.name'] === 'postgresql');
      expect(found.length).toBeGreaterThan(0);
      return found;
    });
    for (const statement of statements) {
      expect(statement.parentSpanId).toBe(server.spanId);
      expect(statement.kind).toBe(SPAN_KIND.client);
      expect(String(statement.attributes['db.query.text'])).not.toContain(staff.id);
    }
    const userRead = statements.find((span) => span.attributes['db.collection.name'] === 'users');
    expect(userRead?.name).toBe('SELECT users');
    expect(userRead?.attributes['db.operation.name']).toBe('SELECT');
    expect(String(userRead?.attributes['db.query.text'])).toMatch(/\$1/);
  });

  it('sends traceparent on its call to the identity provider (the JWKS fetch), from a client span of the request', async () => {
    const user = await createUser(t.db, ['users.read']);
    const token = await signAsymmetric(key, { sub: user.id, email: user.email });
    const { response, traceId } = await tracedGet(`/v1/admin/users/${user.id}`, token);
    expect(response.status).toBe(200);
    expect(jwks.traceparents).toHaveLength(1);
    const [, sentTraceId, sentParentId] = jwks.traceparents[0]!.split('-');
    expect(sentTraceId).toBe(traceId);
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    const fetchSpan = await eventually(() => {
      const found = receiver.spans().find((span) => span.spanId === sentParentId);
      expect(found).toBeDefined();
      return found!;
    });
    expect(fetchSpan).toMatchObject({
      traceId,
      parentSpanId: server.spanId,
      kind: SPAN_KIND.client,
      name: 'GET /.well-known/jwks.json',
    });
    expect(fetchSpan.attributes).toMatchObject({
      'peer.service': 'identity',
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
  });

  it("records the request's call to the runtime service as a client span of its server span", async () => {
    const operator = await createUser(t.db, ['runtime.read']);
    const { response, traceId } = await tracedGet('/v1/admin/runtime/nodes', operator.token);
    expect(response.status).toBe(200);
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    const call = await eventually(() => {
      const found = receiver.spans().find((span) => span.traceId === traceId && span.name === 'GET listNodes');
      expect(found).toBeDefined();
      return found!;
    });
    expect(call).toMatchObject({ parentSpanId: server.spanId, kind: SPAN_KIND.client });
    expect(call.attributes).toMatchObject({
      'peer.service': 'runtime',
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
    expect(String(call.attributes['url.full'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/nodes$/);
  });

  it("writes the request's trace_id and span_id into each of its log lines", async () => {
    const { response, traceId } = await tracedGet(`/v1/admin/users/${staff.id}`, staff.token);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const server = await eventually(() => serverSpanOf(receiver.spans(), traceId));
    const lines = logged
      .lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.request_id === requestId);
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    for (const line of lines) expect(line).toMatchObject({ trace_id: traceId, span_id: server.spanId });
  });

  // Last: it moves the wall clock past jose's cooldown, and jose remembers the (fake) fetch time.
  it("sends each key set fetch its own trace's context only, never what an earlier caller's tracestate left", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const t0 = Date.now();
      const user = await createUser(t.db, ['users.read']);
      /** A token of a key newly published: the key set is fetched again (once the cooldown has passed). */
      const rotatedGet = async (at: number, tracestate?: string) => {
        const rotated = await makeSigningKey('ES256');
        jwks.publish([key, rotated]);
        vi.setSystemTime(at);
        const token = await signAsymmetric(rotated, { sub: user.id, email: user.email });
        const traceId = hex(16);
        const response = await fetch(`${api}/v1/admin/users/${user.id}`, {
          headers: {
            authorization: `Bearer ${token}`,
            traceparent: `00-${traceId}-${hex(8)}-01`,
            ...(tracestate === undefined ? {} : { tracestate }),
          },
        });
        expect(response.status).toBe(200);
        return { traceId, fetched: { traceparent: jwks.traceparents.at(-1), tracestate: jwks.tracestates.at(-1) } };
      };
      const first = await rotatedGet(t0 + JWKS_REFETCH_COOLDOWN_MS + 1_000, 'caller=one');
      expect(first.fetched.traceparent?.split('-')[1]).toBe(first.traceId);
      expect(first.fetched.tracestate).toBe('caller=one');
      const second = await rotatedGet(t0 + 2 * JWKS_REFETCH_COOLDOWN_MS + 2_000);
      expect(second.fetched.traceparent?.split('-')[1]).toBe(second.traceId);
      expect(second.fetched.tracestate).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the log lines of a traced service outside any span', () => {
  it('are written with their own fields, none of an earlier line and no trace fields', () => {
    const logged = captureLog({ traced: true });
    logged.log.info({ job_id: 7, summary: { pruned: 0 } }, 'scheduled job ran');
    logged.log.error({ err: new Error('poll failed') }, 'scheduled jobs poll failed');
    logged.log.info({ metrics: 'http://127.0.0.1:9464/metrics' }, 'metrics listening');
    logged.log.info('no fields of its own');
    const lines = logged.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.msg)).toEqual([
      'scheduled job ran',
      'scheduled jobs poll failed',
      'metrics listening',
      'no fields of its own',
    ]);
    expect(lines[0]).toMatchObject({ job_id: 7, summary: { pruned: 0 } });
    expect(lines[1]).toMatchObject({ err: { message: 'poll failed' } });
    expect(lines[2]).not.toHaveProperty('job_id');
    expect(lines[2]).not.toHaveProperty('err');
    expect(lines[3]).not.toHaveProperty('metrics');
    for (const line of lines) expect(line).not.toHaveProperty('trace_id');
  });
});

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
  let t: TestApp;
  let logged: CapturedLog;

  beforeAll(async () => {
    logged = captureLog();
    t = await startTestApp({ log: logged.log });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('installs no tracer provider, no request hook and no wrapper around the request handler', async () => {
    expect(t.kernel.tracing).toBeUndefined();
    // The API's global provider is its no-op one: spans made through it record nothing.
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    span.end();
    expect(t.app.printRoutes({ includeHooks: true })).not.toContain('tracingNamesSpan');
    const listeners = t.app.server.listeners('request');
    expect(listeners).toHaveLength(1);
    expect(listeners[0]!.name).not.toBe('tracedRequest');
  });

  it('writes no trace fields into log lines', async () => {
    const user = await createUser(t.db, ['users.read']);
    const address = t.app.server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${address.port}/v1/admin/users/${user.id}`, {
      headers: { authorization: `Bearer ${user.token}`, traceparent: `00-${hex(16)}-${hex(8)}-01` },
    });
    expect(response.status).toBe(200);
    expect(logged.lines().length).toBeGreaterThan(0);
    expect(logged.text()).not.toContain('trace_id');
  });
});

describe('the OTLP traces URL under OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('appends /v1/traces to the base, whatever its path', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otel.example/tenant-1/')).toBe('https://otel.example/tenant-1/v1/traces');
  });
});
