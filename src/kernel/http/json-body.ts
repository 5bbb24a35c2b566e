import type { FastifyInstance } from 'fastify';
import { parse as parseContentType } from 'content-type';
import secureJson from 'secure-json-parse';
import { AppError } from '../errors.js';

/**
 * The audience CSV route (operation 9): the spec's 5,000,000 characters inside a JSON body however
 * the client escapes them (`\u00e9` is 6 bytes for one UTF-16 unit, the most any character takes,
 * and some encoders escape everything outside ASCII), plus room for the envelope.
 */
export const LARGE_BODY_LIMIT_BYTES = 6 * 5_000_000 + 64 * 1024;
/** Every other route. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** `application/json` and any `+json` type, with or without parameters (RFC 9110 §8.3.1). */
const JSON_MEDIA_TYPE = /^application\/([\w!#$%&'*.^`|~+-]+\+)?json(?:[ \t]*;|[ \t]*$)/i;

/**
 * The body's charset is UTF-8: none named (JSON is UTF-8, RFC 8259), or `utf-8` in any case and
 * quoting. Parameters are read as RFC 9110 says (names case-insensitive, values quoted or not).
 */
function isUtf8Json(header: string | undefined): boolean {
  if (header === undefined) return true;
  try {
    const charset = parseContentType(header).parameters.charset;
    return charset === undefined || charset.toLowerCase() === 'utf-8';
  } catch {
    return false; // parameters that do not parse as RFC 9110 writes them
  }
}

/**
 * JSON bodies only: an empty body counts as no body (clients often send the header on body-less
 * POSTs), malformed JSON is a clear 400 `invalid_json`, another charset than UTF-8 is 415, and
 * `__proto__`/`constructor` keys are refused rather than merged into objects.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // Fastify's built-in text/plain parser would hand a string to routes expecting JSON (a
  // SchemaError that hides the real problem): every body here is JSON, anything else is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (!isUtf8Json(request.headers['content-type'])) {
      return done(new AppError(415, 'unsupported_media_type', { charset: 'utf-8 only' }), undefined);
    }
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError(400, 'invalid_json'), undefined);
    }
  });
}
