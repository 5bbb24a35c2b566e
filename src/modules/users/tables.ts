/** Migration 0039: the users table's row count, kept by triggers in slots summed on read. */
export interface UserCountSlotsTable {
  slot: number;
  users: number;
}

/** Migration 0044 (a view): who counts as an owner, active and holding the owner role without expiry. */
export interface ActiveOwnersView {
  user_id: string;
}

declare module '../../db/tables.js' {
  interface Tables {
    user_count_slots: UserCountSlotsTable;
    /** @published (roles reads it under the guard's lock before taking owner rights away) */
    active_owners: ActiveOwnersView;
  }
}
