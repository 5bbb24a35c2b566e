import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { TestApp, TestUser } from '../../helpers/app.js';

/** Any frame the server sends, loosely typed: the assertions say what it must hold. */
export type Frame = { type: string; [field: string]: any };

/** A real WebSocket client that records every frame and how the socket closed. */
export interface RealtimeClient {
  frames: Frame[];
  /** Resolves with the close code and reason; the socket closing is always recorded. */
  closed: Promise<{ code: number; reason: string }>;
  waitFor(match: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  send(message: unknown): void;
  close(): Promise<void>;
}

const WAIT_MS = 3_000;

export function socketUrl(app: TestApp): string {
  return `ws://127.0.0.1:${(app.app.server.address() as AddressInfo).port}/v1/realtime`;
}

/** `ticket` goes into the query as given (tickets are URL-safe), so a test can also pass a crafted query. */
export function openSocket(url: string, ticket?: string): RealtimeClient {
  const socket = new WebSocket(ticket === undefined ? url : `${url}?ticket=${ticket}`);
  const frames: Frame[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    frames.push(JSON.parse(data.toString()) as Frame);
    for (const wake of waiters) wake();
  });
  socket.on('error', () => {}); // the close event carries what the tests look at
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return {
    frames,
    closed,
    waitFor(match, timeoutMs = WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(match);
          if (found === undefined) return;
          done();
          resolve(found);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    send(message) {
      socket.send(JSON.stringify(message));
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      // A bound, not a wait: a close the server never answers ends the wait instead of the test.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
    },
  };
}

/** Bounded: a close that never comes fails the test instead of hanging it. */
export function closedWithin(client: RealtimeClient, timeoutMs = WAIT_MS): Promise<{ code: number; reason: string }> {
  return Promise.race([
    client.closed,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms`)), timeoutMs),
    ),
  ]);
}

export async function credentials(
  app: TestApp,
  user: TestUser,
): Promise<{ ticket: string; expires_at: string; url: string; channels: string[] }> {
  const response = await app.request({ method: 'GET', url: '/v1/me/realtime', token: user.token });
  if (response.statusCode !== 200) throw new Error(`credentials: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** A socket that has joined its channels (the server said `subscribed`). */
export async function connected(app: TestApp, user: TestUser, url = socketUrl(app)): Promise<RealtimeClient> {
  const client = openSocket(url, (await credentials(app, user)).ticket);
  await client.waitFor((frame) => frame.type === 'subscribed');
  return client;
}

/**
 * Until every frame the server sent this socket so far has arrived: the server answers a
 * subscribe to the channels the socket has joined after the frames it sent before it.
 */
export async function caughtUp(client: RealtimeClient): Promise<void> {
  const joined = client.frames.findLast((frame) => frame.type === 'subscribed');
  if (joined === undefined) throw new Error('caughtUp: the socket has not joined its channels');
  const sentBefore = client.frames.length;
  client.send({ type: 'subscribe', channels: joined.channels });
  await client.waitFor((frame) => frame.type === 'subscribed' && client.frames.indexOf(frame) >= sentBefore);
}
