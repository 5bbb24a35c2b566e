import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { paged } from '../../kernel/pagination.js';
import {
  auditExportBatch,
  auditFacets,
  countAuditExport,
  listAuditEvents,
  type AuditExportCursor,
  type AuditExportRange,
} from './queries.js';
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

  /**
   * Every entry of the window, oldest first, in batches of `batchSize`: each batch a query of its
   * own resuming after the last row of the one before, so an export of any size holds one batch.
   * Entries written meanwhile inside the window, behind the cursor, are not seen: the window's
   * end is best set in the past (the command's default is when it started).
   */
  async *exportBatches(range: AuditExportRange, batchSize: number) {
    let after: AuditExportCursor | undefined;
    for (;;) {
      const rows = await auditExportBatch(this.db, range, after, batchSize);
      if (rows.length === 0) return;
      yield rows.map((row) => ({ ...row, summary: row.summary as Record<string, unknown> }));
      if (rows.length < batchSize) return;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.created_at, id: last.id };
    }
  }

  countExport(range: AuditExportRange) {
    return countAuditExport(this.db, range);
  }
}
