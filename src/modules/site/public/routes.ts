import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { z } from 'zod';
import { siteQuery, sitePayload } from './schemas.js';
import { PublicSiteService } from './service.js';
import { matchesEtag } from './site-cache.js';

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
    async (request, reply) => {
      const payload = await site.site(request.query);
      reply.header('etag', payload.etag).header('cache-control', SITE_CACHE_CONTROL);
      if (matchesEtag(request.headers['if-none-match'], payload.etag)) return reply.code(304).send(null);
      // Already serialized once per change; a JSON string with a JSON content type is sent as is.
      return reply.type('application/json; charset=utf-8').send(payload.body as never);
    },
  );
}
