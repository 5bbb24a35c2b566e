import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../../../src/kernel/http/request-id.js';

/** A pino logger at `level` whose lines are kept, counting the children made of it. */
function capturingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level }, sink);
  const counted = { children: 0 };
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    counted.children += 1;
    return child(...args);
  }) as typeof logger.child;
  return { logger, lines, counted };
}

const request = (headers: Record<string, string> = {}) => ({ headers }) as unknown as IncomingMessage;

describe("a request's logger", () => {
  it("makes no child for a line its level filters out (Fastify's per-request lines at info)", async () => {
    const { logger, lines, counted } = capturingLogger('warn');
    const log = requestLogger(logger, { request_id: 'r-1' }, {}, request());
    log.info({ req: 'x' }, 'incoming request');
    log.debug('detail');
    expect(counted.children).toBe(0);
    expect(lines).toEqual([]);
  });

  it('writes a line its level lets through, with the request ids bound', async () => {
    const { logger, lines, counted } = capturingLogger('warn');
    const log = requestLogger(logger, { request_id: 'r-2' }, {}, request({ 'x-request-id': 'client-7' }));
    log.warn('slow answer');
    log.error('failed');
    expect(counted.children).toBe(1);
    expect(lines.map(({ msg, request_id, client_request_id }) => ({ msg, request_id, client_request_id }))).toEqual([
      { msg: 'slow answer', request_id: 'r-2', client_request_id: 'client-7' },
      { msg: 'failed', request_id: 'r-2', client_request_id: 'client-7' },
    ]);
  });

  it("follows a route's own level, not the parent's", async () => {
    const { logger, lines } = capturingLogger('warn');
    const log = requestLogger(logger, { request_id: 'r-3' }, { level: 'debug' }, request());
    log.info('a route logging more');
    expect(lines.map((line) => line.msg)).toEqual(['a route logging more']);
  });
});
