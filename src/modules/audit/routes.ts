import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { auditFacetsBody, auditFilters, auditPage, listAuditQuery } from './schemas.js';
import { AuditLogService } from './service.js';

const tags = ['audit'];

export function registerAuditRoutes(app: ZodApp, deps: Deps<'db'>): void {
  const audit = new AuditLogService(deps.db);

  app.get(
    '/v1/admin/audit',
    {
      config: { perms: ['audit.read'] },
      schema: {
        operationId: 'listAuditEntries',
        tags,
        summary: 'The audit log, newest first',
        querystring: listAuditQuery,
        response: { 200: auditPage },
      },
    },
    (request) => audit.list(request.query),
  );

  app.get(
    '/v1/admin/audit/facets',
    {
      config: { perms: ['audit.read'] },
      schema: {
        operationId: 'getAuditFacets',
        tags,
        summary: 'Counts by action, actor and target type over the same filters',
        querystring: auditFilters,
        response: { 200: auditFacetsBody },
      },
    },
    (request) => audit.facets(request.query),
  );
}
