import type { FastifyBaseLogger } from 'fastify';
import { createLogger, type LoggerOptions } from '../../src/kernel/http/logging.js';
import { Writable } from 'node:stream';

export interface CapturedLog {
  log: FastifyBaseLogger;
  /** Every line written so far, as the JSON text pino produced. */
  lines(): string[];
  /** Every line so far joined: search it for what must (not) be there. */
  text(): string;
}

/**
 * The service's logger at `trace`, keeping every line in memory, for asserting what reaches the
 * log; `options` as the service's (`traced`: lines carry the active span's ids).
 */
export function captureLog(options: LoggerOptions = {}): CapturedLog {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const log = createLogger('trace', sink, options);
  return { log, lines: () => [...lines], text: () => lines.join('\n') };
}
