import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http1Pool, type Answer } from '../../bench/http1-pool.js';

/**
 * The soak's load generator reads responses itself (bench/http1-pool.ts): a status it misreads,
 * or a body boundary it gets wrong, would count answers that never came or break the next one on
 * the connection. A real node:http server answers every way a body can be delimited.
 */

let server: Server;
let port: number;
let connections = 0;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = request.url ?? '';
      if (url === '/length') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (url === '/large') return response.writeHead(201).end('x'.repeat(200_000));
      if (url === '/chunked') {
        response.writeHead(202, { 'content-type': 'text/plain' });
        response.write('first');
        setTimeout(() => response.end('y'.repeat(30_000)), 5);
        return;
      }
      if (url === '/empty') return response.writeHead(204).end();
      if (url === '/close') return response.writeHead(200, { connection: 'close' }).end('bye');
      if (url === '/echo') {
        received.push(Buffer.concat(chunks).toString('utf8'));
        return response.writeHead(200).end();
      }
      if (url === '/never') return; // no answer
      response.writeHead(404).end('{"error":"not_found"}');
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function ask(
  pool: Http1Pool,
  path: string,
  extra: { method?: string; body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve) =>
    pool.request(
      {
        method: (extra.method ?? 'GET') as 'GET',
        path,
        headers: extra.headers ?? {},
        ...(extra.body === undefined ? {} : { body: extra.body }),
      },
      performance.now() + (extra.timeoutMs ?? 5_000),
      resolve,
    ),
  );
}

describe('Http1Pool', () => {
  it('reads bodies delimited by length, by chunks and by none, one after another on one connection', async () => {
    const pool = new Http1Pool('127.0.0.1', port, 1);
    const before = connections;
    const answers: Answer[] = [];
    for (const path of ['/length', '/large', '/chunked', '/empty', '/missing', '/chunked', '/length'])
      answers.push(await ask(pool, path));
    expect(answers).toEqual([200, 201, 202, 204, 404, 202, 200]);
    expect(connections - before).toBe(1);
    pool.destroy();
  });

  it('sends a body with its length in bytes, not characters', async () => {
    const pool = new Http1Pool('127.0.0.1', port, 1);
    const body = JSON.stringify({ display_name: 'Zoë 🎮 Øster' });
    expect(await ask(pool, '/echo', { method: 'PATCH', body, headers: { 'content-type': 'application/json' } })).toBe(
      200,
    );
    expect(await ask(pool, '/length')).toBe(200);
    expect(received.at(-1)).toBe(body);
    pool.destroy();
  });

  it('opens a new connection after the server closes one', async () => {
    const pool = new Http1Pool('127.0.0.1', port, 1);
    const before = connections;
    expect(await ask(pool, '/close')).toBe(200);
    expect(await ask(pool, '/length')).toBe(200);
    expect(connections - before).toBe(2);
    pool.destroy();
  });

  it('queues past its connections, and answers a request past its deadline with a timeout', async () => {
    const pool = new Http1Pool('127.0.0.1', port, 2);
    const before = connections;
    const answers = await Promise.all([
      ask(pool, '/never', { timeoutMs: 150 }),
      ...Array.from({ length: 20 }, () => ask(pool, '/length')),
    ]);
    expect(answers[0]).toBe('timeout');
    expect(answers.slice(1).every((answer) => answer === 200)).toBe(true);
    expect(connections - before).toBeLessThanOrEqual(3); // two, and one in place of the one given up
    pool.destroy();
  });

  it('answers a request that waited past its deadline for a connection with a timeout, and one refused with a socket error', async () => {
    const pool = new Http1Pool('127.0.0.1', port, 1);
    const [stuck, waiting] = await Promise.all([
      ask(pool, '/never', { timeoutMs: 400 }),
      ask(pool, '/length', { timeoutMs: 150 }),
    ]);
    expect([stuck, waiting]).toEqual(['timeout', 'timeout']);
    pool.destroy();
    const closed = new Http1Pool('127.0.0.1', 1, 1);
    expect(await ask(closed, '/length')).toBe('socket error');
    closed.destroy();
  });
});
