import { actorOf } from '../../../kernel/auth.js';
import { idResult } from '../../../kernel/answers.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { blockBody, blockIdParams, blocksPage, listBlocksQuery, statusBody, upsertBlockBody } from './schemas.js';
import { ContentBlocksService } from './service.js';

const tags = ['content blocks'];

export function registerContentBlockRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const blocks = new ContentBlocksService(deps.db, deps.write);

  app.get(
    '/v1/admin/site/content-blocks',
    {
      config: { perms: ['content.read', 'content.write'] },
      schema: {
        operationId: 'listSiteContentBlocks',
        tags,
        summary: 'List content blocks',
        querystring: listBlocksQuery,
        response: { 200: blocksPage },
      },
    },
    (request) => blocks.list(request.query),
  );

  app.put(
    '/v1/admin/site/content-blocks',
    {
      config: { perms: ['content.write'] },
      schema: {
        operationId: 'upsertSiteContentBlock',
        tags,
        summary: 'Upsert a content block draft',
        description:
          'The block is identified by surface, slot and locale; its id stays the same across upserts. The block ' +
          'becomes `draft`; a copy already live stays live until the block is published again.',
        body: upsertBlockBody,
        response: { 200: idResult },
      },
    },
    (request) => blocks.upsert(actorOf(request), request.body),
  );

  app.get(
    '/v1/admin/site/content-blocks/:id',
    {
      config: { perms: ['content.read', 'content.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getSiteContentBlock',
        tags,
        summary: 'Get a content block',
        description: '404 `not_found`.',
        params: blockIdParams,
        response: { 200: blockBody },
      },
    },
    (request) => blocks.get(request.params.id),
  );

  app.post(
    '/v1/admin/site/content-blocks/:id/status',
    {
      config: { perms: ['content.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'setSiteContentBlockStatus',
        tags,
        summary: 'Publish, archive or unpublish a content block',
        description:
          '`published` copies the draft live; `archived` takes it off the site; `draft` unpublishes it. 404 ' +
          '`not_found`.',
        params: blockIdParams,
        body: statusBody,
        response: { 200: blockBody },
      },
    },
    (request) => blocks.setStatus(actorOf(request), request.params.id, request.body),
  );
}
