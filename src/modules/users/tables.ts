/** Migration 0039: the users table's row count, kept by triggers in slots summed on read. */
export interface UserCountSlotsTable {
  slot: number;
  users: number;
}

declare module '../../db/tables.js' {
  interface Tables {
    user_count_slots: UserCountSlotsTable;
  }
}
