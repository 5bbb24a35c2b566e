import type { PermissionKey } from '../../../kernel/permissions.js';

/**
 * The alerts the service raises (kernel events of kind `alert`), each with the permissions that
 * may already see what it tells: subscribing a role to an alert requires holding one of them.
 */
export const ALERTS = {
  panic_mode_changed: {
    description: 'The maintenance level changed (by a person or by incident monitoring).',
    readableWith: ['ops.read', 'ops.panic'],
  },
} as const satisfies Record<string, { description: string; readableWith: readonly PermissionKey[] }>;

export type AlertName = keyof typeof ALERTS;
export const ALERT_NAMES = Object.keys(ALERTS) as [AlertName, ...AlertName[]];

/** The realtime channel of a role's alerts; its holders may join it. */
export function roleAlertChannel(roleKey: string): string {
  return `alerts:${roleKey}`;
}
