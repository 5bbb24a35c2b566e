import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { answerWithEtag } from '../public/index.js';
import { PagesService } from './service.js';
import {
  createSitePage,
  getPublicSitePage,
  getSitePage,
  getSitePageVersion,
  listSitePageVersions,
  listSitePages,
  publishSitePage,
  saveSitePageVersion,
  unpublishSitePage,
  updateSitePage,
} from './route-options.js';

/** Pages: created, renamed, listed. */
export function registerPagesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const pages = new PagesService(deps.db, deps.write);

  app.post('/v1/admin/site/pages', createSitePage, async (request, reply) =>
    reply.code(201).send(await pages.create(actorOf(request), request.body)),
  );

  app.get('/v1/admin/site/pages', listSitePages, (request) => pages.list(request.query));

  app.get('/v1/admin/site/pages/:id', getSitePage, (request) => pages.get(request.params.id));

  app.patch('/v1/admin/site/pages/:id', updateSitePage, async (request, reply) => {
    await pages.update(actorOf(request), request.params.id, request.body);
    return reply.code(204).send(null);
  });
}

/** A page's stored versions, and which one is live. */
export function registerPageVersionRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const pages = new PagesService(deps.db, deps.write);

  app.post('/v1/admin/site/pages/:id/versions', saveSitePageVersion, (request) =>
    pages.saveVersion(actorOf(request), request.params.id, request.body),
  );

  app.get('/v1/admin/site/pages/:id/versions', listSitePageVersions, (request) =>
    pages.versions(request.params.id, request.query),
  );

  app.get('/v1/admin/site/pages/:id/versions/:version', getSitePageVersion, (request) =>
    pages.version(request.params.id, request.params.version),
  );

  app.post('/v1/admin/site/pages/:id/publish', publishSitePage, (request) =>
    pages.publish(actorOf(request), request.params.id, request.body.version),
  );

  app.post('/v1/admin/site/pages/:id/unpublish', unpublishSitePage, async (request, reply) => {
    await pages.unpublish(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}

/** The live pages on the public site. */
export function registerPublicPageRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const pages = new PagesService(deps.db, deps.write);

  app.get('/v1/public/site/pages/:slug', getPublicSitePage, async (request, reply) =>
    answerWithEtag(request, reply, await pages.publicPage(request.params.slug)),
  );
}
