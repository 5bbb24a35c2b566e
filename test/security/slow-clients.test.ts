import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/app.js';
import { closedByServer, openSocket, sendRaw, startListeningApp, type ListeningApp } from './outside.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * Clients too slow to finish a request, over real sockets: each is answered 408 in the service's
 * shape and its connection closed within its budget, and anonymous uploads in progress cannot fill
 * the in-flight limit. Budgets are set small (1 s headers and body silence, 3 s a whole request)
 * so the suite stays quick; the defaults are in the README.
 */

const IN_FLIGHT = 60;
const ANONYMOUS_UPLOADS = 10;
let t: ListeningApp;
let player: TestUser;
const open: Socket[] = [];

beforeAll(async () => {
  t = await startListeningApp({
    config: {
      requestHeadersTimeoutSeconds: 1,
      requestBodyTimeoutSeconds: 1,
      // Far enough past the body's silence budget that a loaded machine's late timers cannot
      // blur the two (a silent body took 3.8 s to be answered in a CI run with a 3 s budget).
      requestTimeoutSeconds: 5,
      maxRequestsInFlight: IN_FLIGHT,
      maxAnonymousUploads: ANONYMOUS_UPLOADS,
    },
  });
  player = await createUser(t.db);
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await t.close();
});

async function connection(): Promise<Socket> {
  const socket = await openSocket(t.port);
  open.push(socket);
  return socket;
}

/** The status line, headers and JSON body of what the server wrote before closing. */
function parsed(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) };
}

const elapsedSince = (started: number) => Date.now() - started;

describe('a client too slow to send its request', () => {
  it('that never finishes its headers is answered 408 and closed within the headers budget', async () => {
    const socket = await connection();
    const closed = closedByServer(socket);
    const started = Date.now();
    socket.write('GET /v1/public/site HTTP/1.1\r\nHost: x\r\n');
    const answer = parsed(await closed);
    expect(answer).toMatchObject({ status: 408, body: { error: 'request_timeout' } });
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.connection).toBe('close');
    expect(elapsedSince(started)).toBeLessThan(4_000);
  });

  it('that connects and says nothing is closed within the headers budget', async () => {
    const socket = await connection();
    const started = Date.now();
    await closedByServer(socket);
    expect(elapsedSince(started)).toBeLessThan(4_000);
  });

  it('whose body falls silent is answered 408 through the error handler (its request id) and closed', async () => {
    const socket = await connection();
    const closed = closedByServer(socket);
    const started = Date.now();
    socket.write(
      `PATCH /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${player.token}\r\nx-request-id: silent-body\r\n` +
        'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{"display_name":',
    );
    const answer = parsed(await closed);
    expect(answer).toMatchObject({ status: 408, body: { error: 'request_timeout' } });
    // The caller's id: through the error handler, not Node's whole-request timeout (a fresh id).
    expect(answer.headers['x-request-id']).toBe('silent-body');
    expect(elapsedSince(started)).toBeLessThan(4_500);
    const row = await t.db
      .selectFrom('users')
      .select('display_name')
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(row.display_name).toBeNull();
  });

  it('whose body trickles in, never silent for long, is answered 408 at the whole-request budget', async () => {
    const socket = await connection();
    const closed = closedByServer(socket);
    const started = Date.now();
    socket.write(
      'POST /v1/public/waitlist HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 300);
    const answer = parsed(await closed);
    clearInterval(trickle);
    expect(answer).toMatchObject({ status: 408, body: { error: 'request_timeout' } });
    expect(elapsedSince(started)).toBeGreaterThan(4_500);
    expect(elapsedSince(started)).toBeLessThan(8_000);
  });
});

describe('anonymous uploads in progress', () => {
  it('are bounded: past the bound a new one is 503 at once, and signed-in requests keep being answered', async () => {
    const uploads = await Promise.all(Array.from({ length: IN_FLIGHT }, () => connection()));
    const answers = uploads.map((socket) => closedByServer(socket));
    for (const socket of uploads) {
      socket.write(
        'POST /v1/webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
    }
    // Those past the bound are refused at once; the rest hold their bodies open, and no more.
    let answered = 0;
    for (const answer of answers) void answer.then(() => (answered += 1));
    await waitFor(
      () => answered >= IN_FLIGHT - ANONYMOUS_UPLOADS,
      () => `${IN_FLIGHT - ANONYMOUS_UPLOADS} uploads refused, not ${answered}`,
    );
    expect(t.kernel.load.inFlight).toBeLessThanOrEqual(ANONYMOUS_UPLOADS);
    const me = await sendRaw(t.port, 'GET', '/v1/me', { headers: { authorization: `Bearer ${player.token}` } });
    expect(me.status).toBe(200);
    expect((await sendRaw(t.port, 'GET', '/health')).status).toBe(200);

    const outcomes = (await Promise.all(answers)).map(parsed);
    const overloaded = outcomes.filter((answer) => answer.status === 503);
    expect(overloaded).toHaveLength(IN_FLIGHT - ANONYMOUS_UPLOADS);
    for (const answer of overloaded) {
      expect(answer.body).toEqual({ error: 'unavailable', details: { reason: 'overloaded' } });
      expect(answer.headers['retry-after']).toBe('1');
    }
    // The ones let in were cut by the body's silence budget.
    expect(outcomes.filter((answer) => answer.status === 408)).toHaveLength(ANONYMOUS_UPLOADS);
    expect(t.kernel.load.inFlight).toBe(0);
  });
});
