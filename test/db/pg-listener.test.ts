import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgListener } from '../../src/db/pg-listener.js';
import { eventually } from '../helpers/app.js';

/**
 * The LISTEN connection's timeouts (src/db/pg-listener.ts), against a server that accepts TCP
 * connections and never answers: what a database behind a dead route looks like to a client.
 * No PostgreSQL is needed, so this runs in both suites.
 */
describe('PgListener against a database that never answers', () => {
  let silent: Server;
  let url: string;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    silent = createServer((socket) => {
      // Reads and drops what the client sends (a paused socket would never see the client close).
      socket.resume();
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `postgres://nobody@127.0.0.1:${(silent.address() as AddressInfo).port}/nothing`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('gives up starting after its connect timeout instead of waiting forever', async () => {
    const listener = new PgListener(url, 'anything', { onMessage: () => {}, onResync: () => {} }, 200);
    const started = Date.now();
    await expect(listener.start()).rejects.toThrow(/timeout/i);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(2_000);
    await listener.stop();
    // The abandoned connection was closed, not left open on the server.
    await eventually(() => expect(sockets.size).toBe(0), 1_000);
  });
});
