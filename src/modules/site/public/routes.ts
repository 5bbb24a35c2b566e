import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { siteQuery, sitePayload } from './schemas.js';
import { PublicSiteService } from './service.js';
import { matchesEtag, type CachedPayload } from './site-cache.js';

/** Clients and CDNs may keep the payload but must revalidate; a revalidation is a cheap 304. */
const SITE_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

export function registerPublicSiteRoutes(app: ZodApp, deps: Deps<'bus' | 'db'>): void {
  const site = new PublicSiteService(deps.db, deps.bus);

  app.get(
    '/v1/public/site',
    {
      schema: {
        operationId: 'getPublicSite',
        tags: ['public'],
        summary: 'The public site configuration',
        description: 'Published state only. Carries an `ETag`; send it back in `If-None-Match` for a 304.',
        querystring: siteQuery,
        response: { 200: sitePayload, 304: z.null().describe('Not modified') },
      },
    },
    (request, reply) => {
      // A kept payload is answered at once, with no promise; a build (once per change) is awaited.
      const cached = site.cached(request.query);
      if (cached !== undefined) return void answer(request, reply, cached);
      return site.site(request.query).then((payload) => void answer(request, reply, payload));
    },
  );
}

/** The kept bytes as they are, with their ETag; 304 without a body when the caller has them. */
function answer(request: FastifyRequest, reply: FastifyReply, payload: CachedPayload): void {
  reply.header('etag', payload.etag).header('cache-control', SITE_CACHE_CONTROL);
  if (matchesEtag(request.headers['if-none-match'], payload.etag)) {
    reply.code(304).send(null);
    return;
  }
  // Serialized once per change; bytes with a JSON content type are written as they are.
  reply.type('application/json; charset=utf-8').send(payload.body);
}
