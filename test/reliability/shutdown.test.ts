import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waiting.js';
import { RELIABILITY_FULL } from './fixtures.js';
import { serveBehindIdentity, type ServedBehindIdentity } from './serve-behind-identity.js';

/**
 * SIGTERM to the real `serve` process while slow requests are in flight (staff identity reads,
 * each waiting on an identity provider that answers slowly through a proxy) and fast ones keep
 * coming: the slow ones complete with 200, new connections are refused, and the process exits 0
 * within 10 s. The embedded database on both runs: what is tested is the process, not the store.
 */

const SLOW = RELIABILITY_FULL ? 12 : 4;
/** Per chunk, each way: an identity read takes a few of these, well inside its 8 s budget. */
const PEER_LATENCY_MS = 700;

/** Does a new TCP connection to the port get accepted? */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('SIGTERM under load', () => {
  let fixture: ServedBehindIdentity;
  beforeAll(async () => {
    fixture = await serveBehindIdentity({ IDENTITY_TIMEOUT_MS: '8000' });
  }, 120_000);
  afterAll(() => fixture?.close());

  it('in-flight slow requests complete, new connections are refused, and the process exits 0 within 10 s', async () => {
    const { served, gotrue, proxy, owner } = fixture;
    const headers = await fixture.ownerHeaders();
    expect((await fetch(`${served.base}/v1/admin/users/${owner}/identity`, { headers })).status).toBe(200);

    proxy.latency(PEER_LATENCY_MS);
    const opened = proxy.connections;
    const slow = Array.from({ length: SLOW }, () =>
      fetch(`${served.base}/v1/admin/users/${owner}/identity`, { headers }).then((response) => response.status),
    );
    // Fast traffic beside them until the server stops taking it.
    let refusedFast = false;
    const fastStatuses: number[] = [];
    const fast = (async () => {
      while (!refusedFast) {
        try {
          fastStatuses.push((await fetch(`${served.base}/health`)).status);
        } catch {
          refusedFast = true;
        }
      }
    })();
    // Every slow request has reached the identity provider: they are in flight now.
    await waitFor(
      () => gotrue.requests.length >= 1 + SLOW && proxy.connections >= opened,
      'every slow request at the identity provider',
      { timeoutMs: 10_000 },
    );

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      served.child.on('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const signalledAt = Date.now();
    served.child.kill('SIGTERM');

    // New connections are refused while the slow requests are still being answered.
    await waitFor(
      async () => !(await accepts(Number(new URL(served.base).port))),
      'connections refused after SIGTERM',
      {
        intervalMs: 20,
      },
    );
    expect(served.child.exitCode).toBeNull();

    expect(await Promise.all(slow)).toEqual(Array.from({ length: SLOW }, () => 200));
    const answeredAt = Date.now();
    await fast;
    // A fast request that raced the close on a kept-alive connection may get Fastify's closing
    // 503 (JSON, `Connection: close`): a load balancer retries it elsewhere. Never anything else.
    expect(fastStatuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(fastStatuses.length).toBeGreaterThan(0);
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(10_000);
    // Once the last answer is out nothing holds the process (an idle kept-alive connection would
    // hold it until the 10 s grace).
    expect(at - answeredAt).toBeLessThan(3_000);
    expect(served.output().stderr).not.toMatch(/unhandled|uncaught/i);
  }, 60_000);
});
