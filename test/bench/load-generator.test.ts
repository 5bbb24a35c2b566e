import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareLoad, type LoadSettings } from '../../bench/load.js';
import { wrkAvailable } from '../../bench/wrk.js';

/**
 * The bench's load (bench/load.ts) with the generator this machine has: wrk when installed (.ci/run
 * installs it), autocannon otherwise. Statuses are what marks a scenario FAILED, and a write's
 * requests must never repeat (a PATCH that changes nothing writes and audits nothing), across the
 * warm-up and the measured run too: a real server records every request it receives.
 */

let server: Server;
let baseUrl: string;
const bodies: string[] = [];
const tokens = new Set<string>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url?.startsWith('/write/')) {
        bodies.push(`${request.method} ${request.url} ${Buffer.concat(chunks).toString('utf8')}`);
        // As slow as a real write, so a run stays within the requests wrk has written out for it.
        setTimeout(() => response.writeHead(204).end(), 2);
        return;
      }
      tokens.add(request.headers.authorization ?? '');
      const status = request.url === '/refused' ? 429 : 200;
      response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const settings: LoadSettings = {
  generator: wrkAvailable() ? 'wrk' : 'autocannon',
  connections: 4,
  warmupSeconds: 1,
  durationSeconds: 1,
};

describe(`the bench load (${settings.generator})`, () => {
  it('counts answers by status, every variant sent, and reports its own CPU', async () => {
    const load = prepareLoad(
      baseUrl,
      {
        method: 'GET',
        path: '/ok',
        variants: [
          { headers: { authorization: 'Bearer a' } },
          { path: '/refused', headers: { authorization: 'Bearer b' } },
        ],
      },
      settings,
    );
    const result = await load.measure();
    expect(result.total).toBeGreaterThan(100);
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '429']);
    expect(Math.abs(result.statuses['200']! - result.statuses['429']!)).toBeLessThanOrEqual(settings.connections);
    expect(tokens).toEqual(new Set(['Bearer a', 'Bearer b']));
    expect(result.requestsPerSecond).toBeGreaterThan(0);
    if (settings.generator === 'wrk') expect(result.generatorCpuMs).toBeGreaterThan(0);
  }, 20_000);

  it('never sends the same write twice, across the warm-up and the measured run', async () => {
    bodies.length = 0;
    const load = prepareLoad(
      baseUrl,
      {
        method: 'PATCH',
        path: '/write/0',
        body: { n: 0 },
        vary: (n) => ({ path: `/write/${n % 7}`, body: { n } }),
      },
      settings,
    );
    await load.warmUp();
    const result = await load.measure();
    expect(result.statuses).toEqual({ '204': result.total });
    expect(bodies.length).toBeGreaterThan(100);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(bodies).toContain('PATCH /write/1 {"n":1}');
  }, 20_000);
});
