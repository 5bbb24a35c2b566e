import type { LightMyRequestResponse } from 'fastify';
import { connect } from 'node:net';
import { expect } from 'vitest';

/** `RELIABILITY_FULL=1`: more load, more instances, more rounds (docs/reliability.md). */
export const RELIABILITY_FULL = process.env.RELIABILITY_FULL === '1';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Is anything listening at this URL's host and port? */
export function listening(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The answer while the database is away: 503 `unavailable` (retry later), a JSON body, never a 500. */
export function expectDatabaseUnavailable(response: LightMyRequestResponse): void {
  expect({ status: response.statusCode, body: response.body }).toEqual({
    status: 503,
    body: JSON.stringify({ error: 'unavailable', details: { reason: 'database_unavailable' } }),
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['retry-after']).toBe('5');
}

/**
 * A 503 of a database that does not answer, seen by more requests than the pool has sessions:
 * those holding a session get `database_unavailable`; those still waiting for one when the connect
 * budget runs out get `overloaded` (the instance cannot tell a stuck database from its own load,
 * and a wait for a session is never counted as a database failure: src/db/failures.ts).
 */
export function expectDatabaseRefusal(response: LightMyRequestResponse): 'database_unavailable' | 'overloaded' {
  const reason =
    response.statusCode === 503 ? (response.json() as { details?: { reason?: string } }).details?.reason : undefined;
  if (reason === 'overloaded') {
    expect(response.json()).toEqual({ error: 'unavailable', details: { reason: 'overloaded' } });
    expect(response.headers['retry-after']).toBe('1');
    return reason;
  }
  expectDatabaseUnavailable(response);
  return 'database_unavailable';
}

export interface Outcome<M> {
  response: LightMyRequestResponse;
  /** How long the request took. */
  ms: number;
  meta: M;
}

/**
 * `workers` loops sending requests back to back (request `i` is `send(i)`) until `stop()`,
 * recording every outcome; a test awaits counts of outcomes instead of sleeping.
 */
export function loadUntil<M = undefined>(
  workers: number,
  send: (i: number) => Promise<{ response: LightMyRequestResponse; meta: M } | LightMyRequestResponse>,
) {
  const outcomes: Array<Outcome<M>> = [];
  const waiters: Array<{ done: () => boolean; resolve: () => void }> = [];
  let stopped = false;
  let next = 0;
  const settle = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.done()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped) {
      const started = Date.now();
      const sent = await send(next++);
      const { response, meta } = 'response' in sent ? sent : { response: sent, meta: undefined as M };
      outcomes.push({ response, ms: Date.now() - started, meta });
      settle();
    }
  });
  const when = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      waiters.push({ done, resolve });
      settle();
    });
  const ok = (outcome: Outcome<M>) => outcome.response.statusCode < 400;
  return {
    outcomes,
    whenCompleted: (count: number) => when(() => outcomes.filter(ok).length >= count),
    whenFailed: (count: number) => when(() => outcomes.filter((outcome) => !ok(outcome)).length >= count),
    async stop(): Promise<Array<Outcome<M>>> {
      stopped = true;
      await Promise.all(loops);
      return outcomes;
    },
  };
}
