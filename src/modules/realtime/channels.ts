import type { PermissionKey, PermissionSet } from '../../kernel/permissions.js';
import { roleAlertChannel } from '../operations/alert-subscriptions/index.js';

/** The staff feed of kernel `dashboard` events (every area's changes). */
export const DASHBOARD_CHANNEL = 'dashboard';

/**
 * Dashboard events mirror audited staff actions across every area (billing amounts, user ids,
 * role changes), which is what the audit log shows: so the same key admits the live feed.
 */
export const DASHBOARD_PERMISSIONS: readonly PermissionKey[] = ['audit.read'];

/**
 * Areas whose staff follow their own area's changes live without the whole dashboard: the
 * channel `area:<area>` carries the dashboard events named `<area>.…` to holders of the area's
 * read key (a support agent's queue, marketing's campaign progress), who read the same rows anyway.
 */
export const AREA_CHANNELS: Readonly<Record<string, readonly PermissionKey[]>> = {
  support: ['support.read'],
  email: ['email.read'],
};

export function areaChannel(area: string): string {
  return `area:${area}`;
}

/** The area channel an event goes to as well, if its area has one (`support.ticket_opened` → `area:support`). */
export function areaChannelOf(eventName: string): string | undefined {
  const area = eventName.slice(0, Math.max(0, eventName.indexOf('.')));
  return Object.hasOwn(AREA_CHANNELS, area) ? areaChannel(area) : undefined;
}

export function userChannel(userId: string): string {
  return `user:${userId}`;
}

/**
 * The channels a user may join, own channel first: the dashboard with its permission, each area
 * channel with its area's read key, and the alert channel of each of the user's roles that hears
 * alerts (see role alert subscriptions).
 */
export function allowedChannels(
  userId: string,
  permissions: PermissionSet,
  alertRoleKeys: readonly string[],
): string[] {
  const channels = [userChannel(userId)];
  if (permissions.hasAny(DASHBOARD_PERMISSIONS)) channels.push(DASHBOARD_CHANNEL);
  for (const [area, keys] of Object.entries(AREA_CHANNELS))
    if (permissions.hasAny(keys)) channels.push(areaChannel(area));
  for (const key of alertRoleKeys) channels.push(roleAlertChannel(key));
  return channels;
}
