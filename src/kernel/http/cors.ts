import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stampAnswer } from './request-id.js';

/** What a browser may send: the bearer token, JSON bodies, idempotent retries, its own request id. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
/** What a browser script may read beyond the safelisted headers: what the API's answers carry for it. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'Idempotent-Replayed',
  'ETag',
  'Content-Disposition',
];
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** How long a browser may reuse a preflight: Chromium's cap (Firefox allows a day, Safari 10 minutes). */
export const CORS_PREFLIGHT_MAX_AGE_SECONDS = 7_200;

/**
 * CORS for the listed origins (`CORS_ORIGINS`, exact); with none, nothing is registered and no
 * answer carries a CORS header. Registered before the request pipeline, so every answer to an
 * allowed origin carries its allow header, refusals (401, 429, 503) included: a browser shows a
 * script a body only with it. A preflight from an allowed origin is answered at once, before
 * authentication, the maintenance gate and rate limits (a browser sends no token with it). Any other
 * OPTIONS request, including a preflight from another origin, gets no CORS header and is answered
 * like a method the API does not serve (404), instead of the plugin's plain-text 400.
 */
export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  const common = {
    origin: [...origins],
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_PREFLIGHT_MAX_AGE_SECONDS,
    strictPreflight: false,
  } satisfies FastifyCorsOptions;
  const preflight = { ...common, preflight: true };
  const noPreflight = { ...common, preflight: false };
  // `origin: false`: not one CORS header (the delegator still adds `Vary: Origin`).
  const notAllowed = { origin: false, preflight: false } satisfies FastifyCorsOptions;
  const optionsFor = (request: FastifyRequest) => {
    if (!allowed.has(request.headers.origin ?? '')) return notAllowed;
    const isPreflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    return isPreflight ? preflight : noPreflight;
  };
  // The preflight is answered before the pipeline's hook names the request: it carries its id (and nosniff) too.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS') stampAnswer(request, reply);
    done();
  });
  // A delegator also makes every answer `Vary: Origin`, so a shared cache never hands one origin's
  // answer to another.
  await app.register(cors, {
    delegator: (request, callback) => callback(null, optionsFor(request)),
  });
}
