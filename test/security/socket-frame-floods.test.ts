import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_CHANNEL } from '../../src/kernel/change-bus.js';
import WebSocket from 'ws';
import { SOCKET_LIMITS } from '../../src/modules/realtime/socket-limits.js';
import { createUser, startTestApp, type TestApp } from '../helpers/app.js';
import { closedWithin, connected, credentials, socketUrl, type RealtimeClient } from '../modules/realtime/fixtures.js';
import { clientFrame, flood, frames, rawUpgrade } from '../modules/realtime/raw-socket.js';

/**
 * What one socket may cost (docs/operations.md, "Realtime sockets"), attacked from outside: a flood of
 * tiny invalid frames from a client that never reads, the same from one that reads, frames and
 * pings faster than any client sends, and a staff socket that stops reading while the dashboard
 * is busy. Memory and `/health` are sampled throughout: the service must stay within a bounded
 * margin of its baseline and keep answering.
 */

let t: TestApp;
let port: number;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

const MIB = 1024 * 1024;
/** Far above what the bounded service grows by, far below what an unbounded queue took (400 MiB for 10 MiB sent). */
const MEMORY_MARGIN_MIB = 64;
/** `/health` costs well under a millisecond; a second means the event loop was held. */
const HEALTH_PROMPT_MS = 1_000;

interface Sampled<T> {
  result: T;
  memoryGrowthMib: number;
  slowestHealthMs: number;
  healthAnswers: number;
}

/** The JavaScript heap and the buffers outside it (queued frames are Buffers). */
function memoryInUse(): number {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/** Runs `attack` while sampling this process's memory (the service runs in it) and timing `/health` over HTTP. */
async function sampled<T>(attack: () => Promise<T>): Promise<Sampled<T>> {
  const baseline = memoryInUse();
  let peak = baseline;
  let slowest = 0;
  let answers = 0;
  let running = true;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryInUse());
  }, 10);
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      answers += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const result = await attack();
    return { result, memoryGrowthMib: (peak - baseline) / MIB, slowestHealthMs: slowest, healthAnswers: answers };
  } finally {
    running = false;
    clearInterval(sampler);
    peak = Math.max(peak, memoryInUse());
    await probe;
  }
}

describe('a flood of frames', () => {
  it('tiny invalid frames from sockets that never read: each is cut, memory stays near its baseline, /health answers', async () => {
    const player = await createUser(t.db);
    // A user may hold several sockets: the attacker uses four at once, 10 MiB of `x` frames each.
    const sockets = await Promise.all(
      [1, 2, 3, 4].map(async () => rawUpgrade(port, (await credentials(t, player)).ticket)),
    );
    const chunk = frames(clientFrame('x'), MIB);
    const run = await sampled(() => Promise.all(sockets.map((socket) => flood(socket, chunk, 10 * MIB, 15_000))));
    for (const { cut, written } of run.result) {
      expect(cut).toBe(true);
      expect(written).toBeLessThan(10 * MIB);
    }
    expect(run.memoryGrowthMib).toBeLessThan(MEMORY_MARGIN_MIB);
    expect(run.slowestHealthMs).toBeLessThan(HEALTH_PROMPT_MS);
    expect(run.healthAnswers).toBeGreaterThan(0);
  });

  it('a socket refused at admission (a forged ticket) that floods on is cut, not read until the close times out', async () => {
    const socket = await rawUpgrade(port, 'forged.ticket');
    const run = await sampled(() => flood(socket, frames(clientFrame('x'), MIB), 10 * MIB, 10_000));
    expect(run.result.cut).toBe(true);
    expect(run.result.written).toBeLessThan(10 * MIB);
    expect(run.memoryGrowthMib).toBeLessThan(MEMORY_MARGIN_MIB);
  });

  it('a client that reads its replies gets a few invalid_message answers, then is closed with 1008', async () => {
    const client = await connected(t, await createUser(t.db));
    clients.push(client);
    for (let i = 0; i < 50; i += 1) client.send('x');
    expect(await closedWithin(client)).toEqual({ code: 1008, reason: 'too many invalid messages' });
    expect(client.frames.filter((frame) => frame.error === 'invalid_message')).toHaveLength(
      SOCKET_LIMITS.invalidFrames,
    );
  });

  it('valid frames faster than the budget: closed with 1008 after the burst, the burst answered', async () => {
    const player = await createUser(t.db);
    const client = await connected(t, player);
    clients.push(client);
    for (let i = 0; i < SOCKET_LIMITS.burstFrames + 10; i += 1)
      client.send({ type: 'subscribe', channels: [`user:${player.id}`] });
    expect(await closedWithin(client)).toEqual({ code: 1008, reason: 'too many frames' });
    const answered = client.frames.filter((frame) => frame.type === 'subscribed').length - 1;
    expect(answered).toBeLessThanOrEqual(SOCKET_LIMITS.burstFrames);
    expect(answered).toBeGreaterThanOrEqual(SOCKET_LIMITS.burstFrames - 1);
  });

  it('frames at a steady pace within the budget keep the socket open', async () => {
    const player = await createUser(t.db);
    const client = await connected(t, player);
    clients.push(client);
    for (let i = 0; i < 25; i += 1) {
      client.send({ type: 'subscribe', channels: [`user:${player.id}`] });
      await new Promise((resolve) => setTimeout(resolve, 1000 / (SOCKET_LIMITS.framesPerSecond / 2)));
    }
    await client.waitFor(() => client.frames.filter((frame) => frame.type === 'subscribed').length === 26);
    await expect(closedWithin(client, 200)).rejects.toThrow('still open');
  });

  it('a ping flood (each answered by a pong) is cut like any other', async () => {
    const ticket = (await credentials(t, await createUser(t.db))).ticket;
    const socket = await rawUpgrade(port, ticket);
    const run = await sampled(() => flood(socket, frames(clientFrame('p'.repeat(125), 9), MIB), 20 * MIB, 15_000));
    expect(run.result.cut).toBe(true);
    expect(run.result.written).toBeLessThan(20 * MIB);
    expect(run.memoryGrowthMib).toBeLessThan(MEMORY_MARGIN_MIB);
  });

  it('frames sent before the socket is admitted wait within the same budget', async () => {
    const client = new WebSocket(`${socketUrl(t)}?ticket=${(await credentials(t, await createUser(t.db))).ticket}`);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    client.on('error', () => {});
    // Sent the moment the upgrade is answered, while the service still reads the account.
    client.on('open', () => {
      for (let i = 0; i < 200; i += 1) client.send(JSON.stringify({ type: 'subscribe', channels: [] }));
    });
    expect(await closed).toEqual({ code: 1008, reason: 'too many frames' });
  });
});

/**
 * `count` dashboard events of about `bytes` each, as another instance's commits announce them on
 * the change bus (one statement: publishing each through the outbox costs the test seconds).
 */
async function dashboardBurst(count: number, bytes: number): Promise<number> {
  const first = burstsSent;
  burstsSent += count;
  await sql`
    SELECT pg_notify(${CHANGE_CHANNEL}, json_build_object('topic', 'event', 'data', json_build_object(
      'id', ${first} + g, 'kind', 'dashboard', 'name', 'test.busy', 'payload',
      json_build_object('padding', repeat('e', ${bytes}::int)), 'actorId', NULL, 'requestId', NULL, 'createdAt', now()
    ))::text)
      FROM generate_series(1, ${count}::int) AS g`.execute(t.db);
  return count * bytes;
}
let burstsSent = 1_000_000;

describe('a client that stops reading', () => {
  it('a staff socket left unread while the dashboard is busy is cut once its unsent output passes the cap', async () => {
    const staff = await createUser(t.db, ['audit.read']);
    const socket = await rawUpgrade(port, (await credentials(t, staff)).ticket);
    let ended = false;
    socket.once('close', () => {
      ended = true;
    });
    // Events until the kernel's buffers on loopback are full and the service holds the rest: it
    // must cut the socket. A ping after each batch finds the cut (a write to a closed connection
    // is reset); a service that buffers without limit never cuts, and the test ends at 40 MiB.
    let published = 0;
    while (!ended && published < 40 * MIB) {
      published += await dashboardBurst(256, 5_500);
      await new Promise((resolve) => setTimeout(resolve, SOCKET_LIMITS.closeGraceMs / 4));
      socket.write(clientFrame('', 9));
    }
    expect(ended).toBe(true);
  }, 60_000);
});
