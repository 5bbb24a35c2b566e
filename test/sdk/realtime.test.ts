import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectRealtime,
  createPlatformClient,
  type ErrorFrame,
  type EventFrame,
  type RealtimeClose,
  type RealtimeConnection,
  type SubscribedFrame,
  unwrap,
} from '../../sdk/src/index.js';
import { createUser, type TestUser } from '../helpers/app.js';
import { type ListeningApp, recordingClient, startListeningApp } from './fixtures.js';

/**
 * `connectRealtime` against the real service: a ticket, the socket at the ticket's URL, real
 * events caused by writes, and a new ticket and socket after the server's side is cut.
 */

let t: ListeningApp;
let staff: TestUser;
const connections: RealtimeConnection[] = [];

beforeAll(async () => {
  t = await startListeningApp();
  // audit.read admits the dashboard channel; ops.panic makes the writes that publish to it.
  staff = await createUser(t.db, ['audit.read', 'ops.panic']);
});
afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
  vi.unstubAllGlobals();
});
afterAll(async () => {
  await t.close();
});

/** Everything a connection reported, and a way to wait for the next report that matches. */
function observe(connection: RealtimeConnection) {
  connections.push(connection);
  const seen = {
    subscribed: [] as SubscribedFrame[],
    events: [] as EventFrame[],
    closes: [] as RealtimeClose[],
    opens: 0,
    failures: [] as unknown[],
  };
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  connection.on('subscribed', (frame) => {
    seen.subscribed.push(frame);
    wake();
  });
  connection.on('event', (frame) => {
    seen.events.push(frame);
    wake();
  });
  connection.on('close', (close) => {
    seen.closes.push(close);
    wake();
  });
  connection.on('open', () => {
    seen.opens += 1;
    wake();
  });
  connection.on('failure', (error) => {
    seen.failures.push(error);
    wake();
  });
  const until = (condition: () => boolean, timeoutMs = 5_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`not within ${timeoutMs} ms: ${JSON.stringify(seen)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { seen, until };
}

const setPanic = (level: 'off' | 'degraded', reason: string) =>
  unwrap(
    createPlatformClient({ baseUrl: t.baseUrl, token: () => staff.token }).POST('/v1/admin/ops/panic', {
      body: { level, reason },
    }),
  );

describe('connectRealtime', () => {
  it("joins the ticket's channels and receives the dashboard event a write publishes", async () => {
    const { client } = recordingClient(t, { token: () => staff.token });
    const { seen, until } = observe(connectRealtime(client, { WebSocket }));
    await until(() => seen.subscribed.length === 1);
    expect(seen.subscribed[0]!.channels).toEqual([`user:${staff.id}`, 'dashboard']);

    await setPanic('degraded', 'sdk realtime event');
    await until(() => seen.events.some((event) => event.name === 'ops.panic_changed'));
    const event = seen.events.find((frame) => frame.name === 'ops.panic_changed')!;
    expect(event).toMatchObject({ type: 'event', channel: 'dashboard', id: expect.any(Number) });
    expect(event.payload).toMatchObject({ level: 'degraded', reason: 'sdk realtime event' });
    await setPanic('off', 'sdk realtime over');
  });

  it('`channels` narrows the socket to those channels', async () => {
    const { client } = recordingClient(t, { token: () => staff.token });
    const { seen, until } = observe(connectRealtime(client, { WebSocket, channels: [`user:${staff.id}`] }));
    await until(() => seen.subscribed.some((frame) => frame.channels.length === 1));
    expect(seen.subscribed.at(-1)!.channels).toEqual([`user:${staff.id}`]);
  });

  it('after the server side is cut: a new ticket, a new socket, events again; close() stops it all', async () => {
    const { client, sent } = recordingClient(t, { token: () => staff.token });
    const tickets = () => sent.filter((request) => request.url.pathname === '/v1/me/realtime').length;
    const connection = connectRealtime(client, { WebSocket, initialDelayMs: 50 });
    const { seen, until } = observe(connection);
    await until(() => seen.subscribed.length === 1);

    // As a network failure or a crashed instance would: no close frame, the TCP connection gone.
    for (const socket of t.webSockets) socket.destroy();
    await until(() => seen.subscribed.length === 2);
    expect(seen.closes).toEqual([{ code: 1006, reason: '', reconnectInMs: expect.any(Number) }]);
    expect(seen.closes[0]!.reconnectInMs).toBeLessThanOrEqual(50);
    expect(tickets()).toBe(2);

    await setPanic('degraded', 'sdk realtime after reconnect');
    await until(() => seen.events.some((event) => event.payload.reason === 'sdk realtime after reconnect'));
    await setPanic('off', 'sdk realtime over');

    connection.close();
    await until(() => seen.closes.length === 2);
    expect(seen.closes[1]).toEqual({ code: 1000, reason: 'closed by the client', reconnectInMs: undefined });
    // Longer than any backoff step so far: nothing reopens.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([seen.opens, tickets()]).toEqual([2, 2]);
  });

  it('a ticket refused (no token) is reported and tried again with backoff until close()', async () => {
    const { client, sent } = recordingClient(t, { token: () => undefined });
    const connection = connectRealtime(client, { WebSocket, initialDelayMs: 20, maxDelayMs: 40 });
    const { seen, until } = observe(connection);
    await until(() => seen.failures.length >= 3);
    connection.close();
    expect(seen.failures[0]).toMatchObject({ status: 401, code: 'missing_token' });
    expect(seen.opens).toBe(0);
    const asked = sent.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sent.length).toBe(asked);
  });

  it('uses the global WebSocket when none is passed, and says at once when there is none', async () => {
    const { client } = recordingClient(t, { token: () => staff.token });
    vi.stubGlobal('WebSocket', undefined);
    expect(() => connectRealtime(client)).toThrow(/no global WebSocket; pass options.WebSocket/);
    vi.stubGlobal('WebSocket', WebSocket);
    const { seen, until } = observe(connectRealtime(client));
    await until(() => seen.subscribed.length === 1);
  });

  it('subscribe() narrows the socket, reports refused channels, and holds across a reconnect', async () => {
    const { client } = recordingClient(t, { token: () => staff.token });
    const connection = connectRealtime(client, { WebSocket, initialDelayMs: 50 });
    const refused: ErrorFrame[] = [];
    connection.on('refused', (frame) => refused.push(frame));
    const { seen, until } = observe(connection);
    await until(() => seen.subscribed.length === 1);

    connection.subscribe([`user:${staff.id}`, 'alerts:no-such-role']);
    await until(() => seen.subscribed.length === 2);
    expect(refused).toEqual([{ type: 'error', error: 'channel_not_allowed', channels: ['alerts:no-such-role'] }]);
    expect(seen.subscribed[1]!.channels).toEqual([`user:${staff.id}`]);

    for (const socket of t.webSockets) socket.destroy();
    // The new socket joins every channel of its ticket, then the client narrows it again.
    await until(() => seen.subscribed.length === 4);
    expect(seen.subscribed.slice(2).map((frame) => frame.channels)).toEqual([
      [`user:${staff.id}`, 'dashboard'],
      [`user:${staff.id}`],
    ]);
  });
});
