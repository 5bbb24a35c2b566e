import type { DefaultedTimestamp } from '../../../db/column-types.js';

/** Table types of role alert subscriptions (migration 0026), merged into Kysely's `Tables`. */
export interface RoleAlertSubscriptionsTable {
  role_id: string;
  alert: string;
  created_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    role_alert_subscriptions: RoleAlertSubscriptionsTable;
  }
}
