import type { PermissionKey, PermissionSet } from '../../kernel/permissions.js';
import { roleAlertChannel } from '../alert-subscriptions/index.js';

/** The staff feed of kernel `dashboard` events (every area's changes). */
export const DASHBOARD_CHANNEL = 'dashboard';

/**
 * Dashboard events mirror audited staff actions across every area (billing amounts, user ids,
 * role changes), which is what the audit log shows: so the same key admits the live feed.
 */
export const DASHBOARD_PERMISSIONS: readonly PermissionKey[] = ['audit.read'];

export function userChannel(userId: string): string {
  return `user:${userId}`;
}

/**
 * The channels a user may join, own channel first: the dashboard with its permission, and the
 * alert channel of each of the user's roles that hears alerts (see role alert subscriptions).
 */
export function allowedChannels(
  userId: string,
  permissions: PermissionSet,
  alertRoleKeys: readonly string[],
): string[] {
  const channels = [userChannel(userId)];
  if (permissions.hasAny(DASHBOARD_PERMISSIONS)) channels.push(DASHBOARD_CHANNEL);
  for (const key of alertRoleKeys) channels.push(roleAlertChannel(key));
  return channels;
}
