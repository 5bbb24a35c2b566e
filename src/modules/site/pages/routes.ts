import { createHash } from 'node:crypto';
import { idResult, versionResult } from '../../../kernel/answers.js';
import { z } from 'zod';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { matchesEtag } from '../public/index.js';
import {
  createPageBody,
  emptyBody,
  listPagesQuery,
  pageBody,
  pageIdParams,
  pagesPage,
  publicPageBody,
  publicPageParams,
  publishBody,
  saveVersionBody,
  updatePageBody,
  versionBody,
  versionParams,
  versionsPage,
  versionsQuery,
} from './schemas.js';
import { PagesService } from './service.js';

const tags = ['site pages'];
const noContent = { 204: z.null().describe('Done') };
const read = { perms: ['site.read'] } as const;
const write = { perms: ['site.write'] } as const;
/** Same policy as the public site payload: keep, but revalidate (a cheap 304). */
const PUBLIC_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

export function registerPagesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const pages = new PagesService(deps.db, deps.write);

  app.post(
    '/v1/admin/site/pages',
    {
      config: { ...write, errors: { 409: ['conflict'] } },
      schema: {
        operationId: 'createSitePage',
        tags,
        summary: 'Create a page',
        description: 'The page starts with no versions and unpublished. A taken slug is 409 `conflict`.',
        body: createPageBody,
        response: { 201: idResult },
      },
    },
    async (request, reply) => reply.code(201).send(await pages.create(actorOf(request), request.body)),
  );

  app.get(
    '/v1/admin/site/pages',
    {
      config: read,
      schema: {
        operationId: 'listSitePages',
        tags,
        summary: 'List pages',
        description: '`q` matches slug or title.',
        querystring: listPagesQuery,
        response: { 200: pagesPage },
      },
    },
    (request) => pages.list(request.query),
  );

  app.get(
    '/v1/admin/site/pages/:id',
    {
      config: { ...read, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getSitePage',
        tags,
        summary: 'Get a page',
        description: 'With its live and newest version numbers. 404 `not_found`.',
        params: pageIdParams,
        response: { 200: pageBody },
      },
    },
    (request) => pages.get(request.params.id),
  );

  app.patch(
    '/v1/admin/site/pages/:id',
    {
      config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'] } },
      schema: {
        operationId: 'updateSitePage',
        tags,
        summary: 'Rename a page or change its slug',
        description:
          'At least one of `slug`, `title`; omitted fields keep their value. A live page shows the change at ' +
          'once. 404 `not_found`; 409 `conflict` for a taken slug.',
        params: pageIdParams,
        body: updatePageBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await pages.update(actorOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/site/pages/:id/versions',
    {
      config: { ...write, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'saveSitePageVersion',
        tags,
        summary: 'Store a new page version',
        description:
          'Stores the markdown as the next immutable version and returns its number; nothing goes live. 404 ' +
          '`not_found` for an unknown page.',
        params: pageIdParams,
        body: saveVersionBody,
        response: { 200: versionResult },
      },
    },
    (request) => pages.saveVersion(actorOf(request), request.params.id, request.body),
  );

  app.get(
    '/v1/admin/site/pages/:id/versions',
    {
      config: { ...read, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'listSitePageVersions',
        tags,
        summary: "A page's versions, newest first",
        description: 'Who stored each and when (markdown left out: read one version for it). 404 `not_found`.',
        params: pageIdParams,
        querystring: versionsQuery,
        response: { 200: versionsPage },
      },
    },
    (request) => pages.versions(request.params.id, request.query),
  );

  app.get(
    '/v1/admin/site/pages/:id/versions/:version',
    {
      config: { ...read, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getSitePageVersion',
        tags,
        summary: 'One page version with its markdown',
        description: '404 `not_found` for an unknown page or version.',
        params: versionParams,
        response: { 200: versionBody },
      },
    },
    (request) => pages.version(request.params.id, request.params.version),
  );

  app.post(
    '/v1/admin/site/pages/:id/publish',
    {
      config: { ...write, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'publishSitePage',
        tags,
        summary: 'Make a stored version live',
        description:
          'Any stored version (an older one rolls back). Emits a dashboard event; the public site shows it at ' +
          'once. 404 `not_found` for an unknown page or version.',
        params: pageIdParams,
        body: publishBody,
        response: { 200: versionResult },
      },
    },
    (request) => pages.publish(actorOf(request), request.params.id, request.body.version),
  );

  app.post(
    '/v1/admin/site/pages/:id/unpublish',
    {
      config: { ...write, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'unpublishSitePage',
        tags,
        summary: 'Take a page offline',
        description: 'Its versions are kept. A page that is not live is left as it is. 404 `not_found`.',
        params: pageIdParams,
        body: emptyBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await pages.unpublish(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/public/site/pages/:slug',
    {
      config: { errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getPublicSitePage',
        tags: ['public'],
        summary: 'A published page by slug',
        description:
          "The live version's markdown as stored. 404 `not_found` for an unknown or unpublished page. Carries an " +
          '`ETag` (304 on `If-None-Match`).',
        params: publicPageParams,
        response: { 200: publicPageBody, 304: z.null().describe('Not modified') },
      },
    },
    async (request, reply) => {
      const page = await pages.publicPage(request.params.slug);
      const etag = `"${createHash('sha256').update(JSON.stringify(page)).digest('base64url').slice(0, 32)}"`;
      reply.header('etag', etag).header('cache-control', PUBLIC_CACHE_CONTROL);
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return page;
    },
  );
}
