import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';

/** Large enough for the 5,000,000-character audience CSV inside a JSON body, escapes included. */
export const LARGE_BODY_LIMIT_BYTES = 24 * 1024 * 1024;
/** Every other route. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON bodies only: an empty body counts as no body (clients often send the header on body-less
 * POSTs), malformed JSON is a clear 400 `invalid_json`, and `__proto__`/`constructor` keys are
 * refused rather than merged into objects.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // Fastify's built-in text/plain parser would hand a string to routes expecting JSON (a
  // SchemaError that hides the real problem): every body here is JSON, anything else is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/, { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError(400, 'invalid_json'), undefined);
    }
  });
}
