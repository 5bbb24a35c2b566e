import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { paged } from '../../kernel/pagination.js';
import { auditFacets, listAuditEvents } from './queries.js';
import type { AuditFilters, ListAuditQuery } from './schemas.js';

/** Staff reading the audit log: a page of entries, and counts over the same filters. */
export class AuditLogService {
  constructor(private readonly db: Kysely<Tables>) {}

  async list(query: ListAuditQuery) {
    const { rows, total } = await listAuditEvents(this.db, query);
    return paged(rows, query, total);
  }

  facets(filters: AuditFilters) {
    return auditFacets(this.db, filters);
  }
}
