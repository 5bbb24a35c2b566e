import type { Kernel } from '../../kernel/kernel.js';
import { paged } from '../../kernel/pagination.js';
import type { ZodApp } from '../../kernel/zod-app.js';
import { auditFacets, listAuditEvents } from './queries.js';
import { auditFacetsBody, auditFilters, auditPage, listAuditQuery } from './schemas.js';

const tags = ['audit'];

export function registerAuditRoutes(app: ZodApp, kernel: Kernel): void {
  app.get(
    '/v1/admin/audit',
    {
      config: { perms: ['audit.read'] },
      schema: {
        tags,
        summary: 'The audit log, newest first',
        querystring: listAuditQuery,
        response: { 200: auditPage },
      },
    },
    async (request) => {
      const { rows, total } = await listAuditEvents(kernel.db, request.query);
      return paged(rows, request.query, total);
    },
  );

  app.get(
    '/v1/admin/audit/facets',
    {
      config: { perms: ['audit.read'] },
      schema: {
        tags,
        summary: 'Counts by action, actor and target type over the same filters',
        querystring: auditFilters,
        response: { 200: auditFacetsBody },
      },
    },
    (request) => auditFacets(kernel.db, request.query),
  );
}
