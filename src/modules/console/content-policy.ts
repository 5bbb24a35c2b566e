import { type Config, publicBaseUrlOf } from '../../config.js';

/** A host as a CSP source may name it: a name or IPv4 address, or a bracketed IPv6 one, with an optional port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The Content-Security-Policy of every /admin answer, for the host the browser asked. Scripts and
 * styles only from this origin (no inline code, no eval); images also as data:, blob: and https:
 * (avatars behind signed object-store URLs); connections to this origin, its realtime socket
 * (ws: or wss: of the same host: 'self' covers it only in CSP Level 3 browsers) and the identity
 * provider the console signs staff in at; never framed, no <base>, no plugins.
 */
export function consoleContentPolicy(
  config: Pick<Config, 'consoleGotrueUrl' | 'publicBaseUrl' | 'port'>,
  request: { host: string; protocol: string },
): string {
  const connect = ["'self'"];
  // The Host header is the client's: named only when it is a plain host, so nothing else reaches the header.
  if (PLAIN_HOST.test(request.host)) connect.push(`${request.protocol === 'https' ? 'wss' : 'ws'}://${request.host}`);
  // The realtime ticket names its socket by PUBLIC_BASE_URL (src/modules/realtime/credentials.ts),
  // which need not be the host the browser asked (`localhost` beside `127.0.0.1` in development).
  const socketOrigin = new URL(publicBaseUrlOf(config)).origin.replace(/^http/i, 'ws');
  if (!connect.includes(socketOrigin)) connect.push(socketOrigin);
  if (config.consoleGotrueUrl !== undefined) connect.push(new URL(config.consoleGotrueUrl).origin);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}
