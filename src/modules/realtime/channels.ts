import type { PermissionSet } from '../../kernel/permissions.js';
import type { PermissionKey } from '../../kernel/permissions.js';

/** The staff feed of kernel `dashboard` events (every area's changes). */
export const DASHBOARD_CHANNEL = 'dashboard';
/** Kernel `alert` events, such as `panic_mode_changed`. */
export const ALERTS_CHANNEL = 'alerts';

/**
 * Dashboard events mirror audited staff actions across every area (billing amounts, user ids,
 * role changes), which is what the audit log shows: so the same key admits the live feed.
 */
export const DASHBOARD_PERMISSIONS: readonly PermissionKey[] = ['audit.read'];
/** Whoever may see or set the maintenance level hears when it changes. */
export const ALERT_PERMISSIONS: readonly PermissionKey[] = ['ops.read', 'ops.panic'];

export function userChannel(userId: string): string {
  return `user:${userId}`;
}

/** The channels a user may join, own channel first. */
export function allowedChannels(userId: string, permissions: PermissionSet): string[] {
  const channels = [userChannel(userId)];
  if (permissions.hasAny(DASHBOARD_PERMISSIONS)) channels.push(DASHBOARD_CHANNEL);
  if (permissions.hasAny(ALERT_PERMISSIONS)) channels.push(ALERTS_CHANNEL);
  return channels;
}
