import { publicBaseUrlOf, type Config } from '../../config.js';
import type { PermissionSet } from '../../kernel/permissions.js';
import { allowedChannels } from './channels.js';
import type { RealtimeCredentials } from './schemas.js';
import { signTicket, TICKET_TTL_SECONDS } from './tickets.js';

/** Where players reach the socket: the public base URL with its scheme swapped (http → ws, https → wss). */
export function realtimeUrl(config: Pick<Config, 'publicBaseUrl' | 'port'>): string {
  const base = publicBaseUrlOf(config).replace(/\/+$/, '');
  return `${base.replace(/^http/i, 'ws')}/v1/realtime`;
}

/** A ticket for the caller's own channels, as the permissions and roles they hold right now allow. */
export function issueCredentials(
  key: Buffer,
  config: Pick<Config, 'publicBaseUrl' | 'port'>,
  userId: string,
  permissions: PermissionSet,
  alertRoleKeys: readonly string[],
  now = new Date(),
): RealtimeCredentials {
  const channels = allowedChannels(userId, permissions, alertRoleKeys);
  const expiresAt = Math.floor(now.getTime() / 1000) + TICKET_TTL_SECONDS;
  return {
    ticket: signTicket(key, { userId, channels, expiresAt }),
    expires_at: new Date(expiresAt * 1000).toISOString(),
    url: realtimeUrl(config),
    channels,
  };
}
