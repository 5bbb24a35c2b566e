import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag } from './site-cache.js';

/** Same policy as the public site payload: keep, but revalidate (a cheap 304). */
const PUBLIC_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

/**
 * A public answer (a live page, the products on sale) with an `ETag` of its JSON and the public
 * cache policy; 304 without a body when the caller's `If-None-Match` names it.
 */
export function answerWithEtag<Answer>(request: FastifyRequest, reply: FastifyReply, answer: Answer) {
  const etag = `"${createHash('sha256').update(JSON.stringify(answer)).digest('base64url').slice(0, 32)}"`;
  reply.header('etag', etag).header('cache-control', PUBLIC_CACHE_CONTROL);
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
  return answer;
}
