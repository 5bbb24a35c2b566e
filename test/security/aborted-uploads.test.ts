import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, sendRaw, startListeningApp, type ListeningApp } from './outside.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * Clients that abort their request bodies (Node raises ECONNRESET or `aborted` while reading) are
 * not the database failing. Twenty such uploads on the open webhook route used to trip the shipped
 * `database-failing` rule and put every instance into lockdown. Now: nothing is counted, the
 * shipped rules change nothing, and the instance keeps answering.
 */

let t: ListeningApp;

beforeAll(async () => {
  t = await startListeningApp();
});
afterAll(async () => {
  await t.close();
});

/** `count` uploads that promise 1,000 bytes, send one, and reset the connection. */
async function abortedUploads(path: string, count: number): Promise<void> {
  const sockets = await Promise.all(Array.from({ length: count }, () => openSocket(t.port)));
  let answered = 0;
  for (const socket of sockets) {
    socket.once('data', () => (answered += 1));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
  }
  // Every upload taken in (the server waits for its body) or answered at once, before the resets.
  await waitFor(
    () => t.kernel.load.inFlight + answered === count,
    () => `${count} uploads in flight or answered, not ${t.kernel.load.inFlight} + ${answered}`,
  );
  for (const socket of sockets) socket.resetAndDestroy();
  // Until the server has seen every reset (its in-flight count is back to zero).
  await waitFor(
    () => t.kernel.load.inFlight === 0,
    () => `no upload in flight, not ${t.kernel.load.inFlight}`,
  );
}

describe('aborted uploads', () => {
  it('are not database failures: no signal counted, the shipped rules leave the level off', async () => {
    const rules = await t.db
      .selectFrom('incident_rules')
      .select(['key', 'enabled'])
      .where('key', '=', 'database-failing')
      .executeTakeFirstOrThrow();
    expect(rules.enabled).toBe(true);
    t.kernel.signals.take();
    await abortedUploads('/v1/webhooks/stripe', 20);
    await abortedUploads('/v1/public/waitlist', 20);
    expect(t.kernel.load.inFlight).toBe(0);
    const counted = t.kernel.signals.take();
    expect(counted.get('database_errors')).toBeUndefined();
    // Nor a 5xx of this service's own.
    expect(counted.get('http_5xx')?.failures ?? 0).toBe(0);
    t.kernel.signals.restore(counted);

    const now = new Date();
    await t.kernel.incidents.flush(now);
    expect((await t.kernel.incidents.evaluate(now)).changed).toBeNull();
    expect(t.kernel.panic.state.level).toBe('off');
    const stored = await t.db.selectFrom('ops_panic_state').select('level').executeTakeFirstOrThrow();
    expect(stored.level).toBe('off');
    expect(await t.db.selectFrom('ops_panic_changes').select('id').execute()).toEqual([]);
    // And the instance answers as before.
    expect((await sendRaw(t.port, 'GET', '/health')).status).toBe(200);
  });
});
