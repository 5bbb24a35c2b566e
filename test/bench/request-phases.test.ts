import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceRequestPhases, type RequestPhases } from '../../bench/request-phases.mjs';

/**
 * The soak's probe splits a slow request into pool wait, queries and the rest
 * (bench/request-phases.mjs). A server with a one-connection pool: two requests at once make one
 * wait for the other's connection.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('request phases', () => {
  let pool: pg.Pool;
  /** Two connections: a request's two queries run at once. */
  let widePool: pg.Pool;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1, application_name: 'narrow' });
    widePool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 2 });
    const sleep = async (from: pg.Pool) => {
      const client = await from.connect();
      try {
        await client.query('SELECT pg_sleep(0.08)');
      } finally {
        client.release();
      }
    };
    server = createServer((request, response) => {
      void (async () => {
        if (request.url?.startsWith('/query')) {
          await sleep(pool);
        } else if (request.url === '/two-at-once') {
          await Promise.all([sleep(widePool), sleep(widePool)]);
        } else {
          const until = Date.now() + 30;
          while (Date.now() < until) {
            /* the service's own work */
          }
        }
        response.end('done');
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await pool.end();
    await widePool.end();
  });

  it('times the wait for a pooled connection, the queries and the rest, per request, until stopped', async () => {
    const seen: RequestPhases[] = [];
    const stop = traceRequestPhases(pg, (phases) => seen.push(phases));
    try {
      await Promise.all(
        [fetch(`${base}/query?n=1`), fetch(`${base}/query?n=2`)].map(async (answer) => (await answer).text()),
      );
      expect(seen.map((phases) => phases.what)).toEqual(['GET /query', 'GET /query']);
      for (const phases of seen) {
        expect(phases.queries).toBe(1);
        expect(phases.queryMs).toBeGreaterThanOrEqual(75);
        expect(phases.ms).toBeGreaterThanOrEqual(phases.queryMs + phases.poolWaitMs);
      }
      // The second waited for the first's connection, the whole of its query.
      const [first, second] = [...seen].sort((a, b) => a.poolWaitMs - b.poolWaitMs);
      expect(first!.poolWaitMs).toBeLessThan(40);
      expect(second!.poolWaitMs).toBeGreaterThanOrEqual(70);
      // Named by the pool's session name; the wide pool names none.
      expect(second!.longestPoolWait).toMatchObject({ pool: 'narrow' });
      expect(second!.longestPoolWait!.ms).toBeGreaterThanOrEqual(70);

      expect(seen[0]!.slowestQuery).toMatchObject({ text: 'SELECT pg_sleep(0.08)' });
      expect(seen[0]!.slowestQuery!.ms).toBeGreaterThanOrEqual(75);

      // Two queries at once are 80 ms of waiting on queries, not 160.
      seen.length = 0;
      await widePool.query('SELECT 1');
      await (await fetch(`${base}/two-at-once`)).text();
      expect(seen).toMatchObject([{ what: 'GET /two-at-once', queries: 2, longestPoolWait: { pool: 'unnamed' } }]);
      expect(seen[0]!.queryMs).toBeGreaterThanOrEqual(75);
      expect(seen[0]!.queryMs).toBeLessThan(140);

      seen.length = 0;
      await (await fetch(`${base}/work`)).text();
      expect(seen).toMatchObject([
        { what: 'GET /work', poolWaitMs: 0, queryMs: 0, queries: 0, slowestQuery: null, longestPoolWait: null },
      ]);
      expect(seen[0]!.ms).toBeGreaterThanOrEqual(29);
    } finally {
      stop();
    }
    seen.length = 0;
    await (await fetch(`${base}/query`)).text();
    expect(seen).toEqual([]);
    expect(Object.hasOwn(pg.Pool.prototype, 'connect')).toBe(false);
  });
});
