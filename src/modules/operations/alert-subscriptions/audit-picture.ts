import { auditPicture } from '../../../kernel/audit.js';
import type { RoleAlertSubscriptionsTable } from './tables.js';

/**
 * What a role's audit rows keep of its alert subscriptions: the set of alert names, sorted (the
 * service hands them with the rows). A row's role is the audit row's target.
 */
export const roleAlertsPicture = auditPicture<RoleAlertSubscriptionsTable & { alerts: readonly string[] }>({
  role_id: false,
  alert: false,
  created_at: false,
  alerts: true,
});
