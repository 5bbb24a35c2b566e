import type { FastifyBaseLogger } from 'fastify';
import { pino, type DestinationStream, type Level } from 'pino';

/** Query values that are credentials (unsubscribe tokens, realtime tickets): never in a log line. */
const CREDENTIAL_QUERY = /([?&](?:token|ticket)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(CREDENTIAL_QUERY, '$1[redacted]');
}

interface LoggedRequest {
  method?: string;
  url?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The service's logger: pino JSON, with the authorization and cookie headers censored should
 * anyone log them, and a request shown by method, URL (credentials in its query censored),
 * host and client address only.
 */
export function createLogger(level: Level | 'silent', destination?: DestinationStream): FastifyBaseLogger {
  const options = {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: request.url === undefined ? undefined : redactUrl(request.url),
        hostname: request.hostname,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
  return (destination === undefined ? pino(options) : pino(options, destination)) as unknown as FastifyBaseLogger;
}
