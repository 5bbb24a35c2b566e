import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waiting.js';
import { closedWithin, openSocket } from '../modules/realtime/fixtures.js';
import { serveBehindIdentity, type ServedBehindIdentity } from './serve-behind-identity.js';

/**
 * SIGTERM to the real `serve` process (embedded database in a temp DATA_DIR, a free port) with a
 * slow request in flight and a realtime socket open: readiness turns 503 `draining` first, while
 * the instance still serves (SHUTDOWN_DELAY_MS); then the listener closes, the in-flight request
 * completes 200, the socket is closed with 1001, and the process exits 0.
 */

/** Per chunk, each way: the identity read is still under way well after the delay has passed. */
const PEER_LATENCY_MS = 1_500;
const SHUTDOWN_DELAY_MS = 800;

describe('SIGTERM drain', () => {
  let fixture: ServedBehindIdentity;
  beforeAll(async () => {
    fixture = await serveBehindIdentity({
      IDENTITY_TIMEOUT_MS: '10000',
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      SHUTDOWN_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'info',
    });
    // A start under a loaded machine (the whole suite beside it) can take most of a minute.
  }, 120_000);
  afterAll(() => fixture?.close());

  it('readiness turns 503 first, the in-flight request completes 200, the socket closes 1001, exit 0', async () => {
    const { served, gotrue, proxy, owner } = fixture;
    const headers = await fixture.ownerHeaders();
    const ready = await fetch(`${served.base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { draining: false } });

    const credentials = await fetch(`${served.base}/v1/me/realtime`, { headers });
    expect(credentials.status).toBe(200);
    const { ticket } = (await credentials.json()) as { ticket: string };
    const socket = openSocket(`${served.base.replace('http:', 'ws:')}/v1/realtime`, ticket);
    await socket.waitFor((frame) => frame.type === 'subscribed', 10_000);

    proxy.latency(PEER_LATENCY_MS);
    const asked = gotrue.requests.length;
    let slowDoneAt = Number.POSITIVE_INFINITY;
    const slow = fetch(`${served.base}/v1/admin/users/${owner}/identity`, { headers }).then((response) => {
      slowDoneAt = Date.now();
      return response.status;
    });
    await waitFor(() => gotrue.requests.length > asked, 'the slow request at the identity provider', {
      timeoutMs: 10_000,
    });

    served.child.kill('SIGTERM');

    // Still serving, readiness now refuses: the load balancer takes the instance out first.
    let notReady: { status: number; body: unknown } | undefined;
    await waitFor(
      async () => {
        const response = await fetch(`${served.base}/health/ready`);
        notReady = { status: response.status, body: await response.json() };
        return response.status === 503;
      },
      'readiness 503 after SIGTERM',
      { timeoutMs: SHUTDOWN_DELAY_MS, intervalMs: 20 },
    );
    const notReadyAt = Date.now();
    expect(notReady?.body).toEqual({
      error: 'not_ready',
      details: {
        failing: ['draining'],
        checks: { database: 'ok', migrations: 'ok', redis: 'not_configured', draining: true },
      },
    });
    expect((await fetch(`${served.base}/health/live`)).status).toBe(200);

    expect(await slow).toBe(200);
    expect(notReadyAt).toBeLessThan(slowDoneAt);
    expect(await closedWithin(socket, 10_000)).toEqual({ code: 1001, reason: 'server shutting down' });
    // Polled, not an 'exit' listener: the serve helper drops those on each line the process logs.
    await waitFor(() => served.child.exitCode !== null, 'the process to exit', { timeoutMs: 15_000 });
    expect(served.child.exitCode).toBe(0);
    const { stdout, stderr } = served.output();
    expect(stderr).not.toMatch(/unhandled|uncaught/i);
    expect(`${stdout}${stderr}`).toMatch(/draining: readiness answers 503/);
    expect(`${stdout}${stderr}`).toMatch(/"msg":"drained"/);
  }, 60_000);
});

describe('SIGTERM drain past SHUTDOWN_TIMEOUT_MS', () => {
  let fixture: ServedBehindIdentity;
  beforeAll(async () => {
    fixture = await serveBehindIdentity({ IDENTITY_TIMEOUT_MS: '10000', SHUTDOWN_TIMEOUT_MS: '500' });
    // A start under a loaded machine (the whole suite beside it) can take most of a minute.
  }, 120_000);
  afterAll(() => fixture?.close());

  it('a request still running at the timeout is cut, and the process exits 1 saying so', async () => {
    const { served, gotrue, proxy, owner } = fixture;
    proxy.latency(PEER_LATENCY_MS * 2);
    const asked = gotrue.requests.length;
    const slow = fetch(`${served.base}/v1/admin/users/${owner}/identity`, {
      headers: await fixture.ownerHeaders(),
    }).then(
      (response) => response.status,
      (error: Error) => `failed: ${error.message}`,
    );
    await waitFor(() => gotrue.requests.length > asked, 'the slow request at the identity provider', {
      timeoutMs: 10_000,
    });
    const signalledAt = Date.now();
    served.child.kill('SIGTERM');

    expect(await slow).toMatch(/^failed/);
    await waitFor(() => served.child.exitCode !== null, 'the process to exit', { timeoutMs: 10_000 });
    expect(served.child.exitCode).toBe(1);
    // The timeout, then at most the grace for what remains: nothing waits for the slow peer.
    expect(Date.now() - signalledAt).toBeLessThan(PEER_LATENCY_MS * 2);
    // pino writes every level to stdout.
    expect(served.output().stdout).toMatch(/"msg":"drain timed out: ending every remaining connection"/);
    expect(served.output().stderr).not.toMatch(/unhandled|uncaught/i);
  }, 60_000);
});
