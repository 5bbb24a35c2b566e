/** Migration 0040: audit entries per action, kept by triggers in slots summed on read. */
export interface AuditActionCountsTable {
  action: string;
  slot: number;
  events: number;
}

declare module '../../db/tables.js' {
  interface Tables {
    audit_action_counts: AuditActionCountsTable;
  }
}
