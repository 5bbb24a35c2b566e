/** Migration 0040: audit entries per action (action → entries), kept by triggers in slots summed on read. */
export interface AuditCountSlotsTable {
  slot: number;
  actions: Record<string, number>;
}

declare module '../../db/tables.js' {
  interface Tables {
    audit_count_slots: AuditCountSlotsTable;
  }
}
