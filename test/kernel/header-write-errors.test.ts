import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { captureLog, type CapturedLog } from '../helpers/captured-log.js';

/**
 * Node refuses a header it cannot write (CR, LF, a character past Latin-1) only when the answer
 * is written, after the route returned. The error answer used to carry the same headers, failed
 * the same way, and Fastify's last resort wrote `500 See Other` with its own body and no headers
 * (no `x-request-id`). Over real HTTP, where that last resort dropped them.
 */

let t: TestApp;
let base: string;
let log: CapturedLog;

beforeAll(async () => {
  log = captureLog();
  t = await startTestApp({
    log: log.log,
    extraRoutes: (app) => {
      app.post('/test/redirect-to-unwritable', async (_request, reply) =>
        reply.redirect('https://game.example/\r\nSet-Cookie: a=b', 303),
      );
      app.get('/test/unwritable-header', async (_request, reply) => {
        void reply.header('cache-control', 'no-store').header('x-probe', 'a\u2028b');
        return { ok: true };
      });
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

describe("an error raised while the answer's headers are written", () => {
  it.each([
    ['a redirect to a URL holding CR LF', 'POST', '/test/redirect-to-unwritable'],
    ['a header holding U+2028', 'GET', '/test/unwritable-header'],
  ])(
    "%s: 500 `internal` from the service's error handler, with its request id, the unwritable header dropped",
    async (_name, method, path) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        redirect: 'manual',
        headers: { 'x-request-id': `probe-${path.length}-${method}` },
      });
      expect({ status: answer.status, statusText: answer.statusText }).toEqual({
        status: 500,
        statusText: 'Internal Server Error',
      });
      expect(answer.headers.get('x-request-id')).toBe(`probe-${path.length}-${method}`);
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect([answer.headers.get('location'), answer.headers.get('set-cookie'), answer.headers.get('x-probe')]).toEqual(
        [null, null, null],
      );
      expect(await answer.json()).toEqual({ error: 'internal' });
      const logged = log
        .lines()
        .map((line) => JSON.parse(line))
        .filter(
          (line) => line.client_request_id === `probe-${path.length}-${method}` && line.msg === 'unhandled error',
        );
      expect(logged).toHaveLength(1);
      expect(logged[0].err.code).toBe('ERR_INVALID_CHAR');
    },
  );

  it('the connection stays usable: the next request on it is answered', async () => {
    expect((await fetch(`${base}/test/unwritable-header`)).status).toBe(500);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
