import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/app.js';
import { closedWithin, credentials, openSocket, socketUrl, type RealtimeClient } from '../modules/realtime/fixtures.js';
import { sendRaw, startListeningApp, type ListeningApp } from './outside.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * Realtime sockets are connections, not requests in flight: a crowd of connected players leaves
 * the API answering, and sockets have caps of their own, per user and per instance, closed with a
 * clear code. Sized to the CI budget: a thousand sockets on one instance whose in-flight limit
 * is fifty.
 */

const PLAYERS = 250;
const SOCKETS_EACH = 4;
let t: ListeningApp;
let small: ListeningApp;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  t = await startListeningApp({ config: { maxRequestsInFlight: 50, realtimeMaxSocketsPerUser: 8 } });
  small = await startListeningApp({ config: { realtimeMaxSockets: 3 } });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await small.close();
  await t.close();
});

async function connectedAll(app: ListeningApp, user: TestUser, count: number): Promise<RealtimeClient[]> {
  const { ticket } = await credentials(app, user);
  const opened = Array.from({ length: count }, () => openSocket(socketUrl(app), ticket));
  clients.push(...opened);
  await Promise.all(opened.map((client) => client.waitFor((frame) => frame.type === 'subscribed', 20_000)));
  return opened;
}

/** A socket of `user` once a place is free: the server frees a closed socket's a moment after the client sees it close. */
async function connectedOnceFree(app: ListeningApp, user: TestUser): Promise<RealtimeClient> {
  const { ticket } = await credentials(app, user);
  let client!: RealtimeClient;
  await waitFor(async () => {
    client = openSocket(socketUrl(app), ticket);
    clients.push(client);
    const joined = client
      .waitFor((frame) => frame.type === 'subscribed')
      .then(
        () => true,
        () => false,
      );
    return Promise.race([joined, client.closed.then(() => false)]);
  }, 'a free place');
  return client;
}

describe('a thousand connected sockets', () => {
  it('hold no request slot: the API keeps answering past an in-flight limit of fifty', async () => {
    const players = await Promise.all(Array.from({ length: PLAYERS }, () => createUser(t.db)));
    for (let i = 0; i < players.length; i += 50) {
      await Promise.all(players.slice(i, i + 50).map((player) => connectedAll(t, player, SOCKETS_EACH)));
    }
    expect(clients).toHaveLength(PLAYERS * SOCKETS_EACH);
    expect(t.kernel.load.inFlight).toBe(0);
    const me = await sendRaw(t.port, 'GET', '/v1/me', { headers: { authorization: `Bearer ${players[0]!.token}` } });
    expect(me.status).toBe(200);
    const burst = await Promise.all(Array.from({ length: 40 }, () => sendRaw(t.port, 'GET', '/v1/public/site')));
    expect(burst.map((answer) => answer.status)).toEqual(burst.map(() => 200));
  }, 60_000);
});

describe('caps', () => {
  it('one user past their cap is closed with 1008; a place freed is taken again', async () => {
    const player = await createUser(t.db);
    const eight = await connectedAll(t, player, 8);
    const { ticket } = await credentials(t, player);
    const ninth = openSocket(socketUrl(t), ticket);
    expect(await closedWithin(ninth)).toEqual({ code: 1008, reason: 'too many sockets for this user' });
    expect(ninth.frames).toEqual([]);
    await eight[0]!.close();
    await connectedOnceFree(t, player);
  });

  it('an instance past its cap closes a new socket with 1013 (try again later), whoever opens it', async () => {
    const [a, b] = await Promise.all([createUser(small.db), createUser(small.db)]);
    const held = await connectedAll(small, a!, 3);
    const { ticket } = await credentials(small, b!);
    const fourth = openSocket(socketUrl(small), ticket);
    expect(await closedWithin(fourth)).toEqual({ code: 1013, reason: 'too many sockets on this instance' });
    await held[0]!.close();
    await connectedOnceFree(small, b!);
  });
});
