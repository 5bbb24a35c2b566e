import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type Level } from 'pino';
import type { LogFormat } from '../../config.js';
import { isDatabaseError } from '../../db/failures.js';
import { traceFields } from '../tracing/log-fields.js';

/**
 * Query parameters that carry a credential, wherever a URL is written down: unsubscribe tokens,
 * realtime tickets, the local store's signatures, S3's presigned signatures and credentials, and
 * the OAuth names a client might put there. Matched whatever their case.
 */
export const CREDENTIAL_QUERY_PARAMETERS = [
  'token',
  'ticket',
  'sig',
  'signature',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'device_code',
  'api_key',
  'apikey',
  'password',
  'secret',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
];
const CREDENTIAL_QUERY = new RegExp(`([?&;](?:${CREDENTIAL_QUERY_PARAMETERS.join('|')})=)[^&#;]*`, 'gi');

export function redactUrl(url: string): string {
  return url.replace(CREDENTIAL_QUERY, '$1[redacted]');
}

/** The fields of a database error that name what failed without the values it failed on. */
const DATABASE_ERROR_FIELDS = [
  'code',
  'severity',
  'schema',
  'table',
  'column',
  'constraint',
  'dataType',
  'routine',
] as const;

/**
 * An error as a log line shows it. A database error (raised by the driver on a call: its message,
 * `detail`, `where`, query and parameters can hold the values of a row, an email say) shows only
 * its SQLSTATE, table, column and constraint, and its stack without the message line.
 */
export function serializeError(error: unknown): unknown {
  // Something thrown that is no Error (a library's plain object, a string) still says what it was.
  if (!(error instanceof Error)) return thrownValue(error);
  if (!isDatabaseError(error)) return stdSerializers.errWithCause(error);
  const fields = error as unknown as Record<string, unknown>;
  const shown: Record<string, unknown> = { type: 'DatabaseError' };
  for (const field of DATABASE_ERROR_FIELDS) if (typeof fields[field] === 'string') shown[field] = fields[field];
  shown.stack = (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
  return shown;
}

function thrownValue(value: unknown): { type: string; message: string } {
  const type =
    value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'Object') : typeof value;
  if (typeof value === 'object' && value !== null) {
    const { message } = value as { message?: unknown };
    if (typeof message === 'string') return { type, message };
    try {
      return { type, message: JSON.stringify(value).slice(0, 500) };
    } catch {
      return { type, message: String(value) };
    }
  }
  return { type, message: String(value) };
}

/**
 * Whether log lines are for a person: `pretty` or `json` as configured; `auto` chooses pretty only
 * on a terminal outside production (a collector reading a pipe gets JSON).
 */
export function prettyLogs(format: LogFormat, production: boolean, terminal = process.stdout.isTTY === true): boolean {
  if (format !== 'auto') return format === 'pretty';
  return terminal && !production;
}

/** Lines a person reads (pino-pretty), written synchronously like pino's own stdout. */
export function prettyDestination(output: NodeJS.WritableStream = process.stdout): DestinationStream {
  // Required here, synchronously: JSON lines (production, a pipe) do not pay for loading it.
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    destination: output,
    sync: true,
    colorize: output === process.stdout && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}

interface LoggedRequest {
  method?: string;
  url?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export interface LoggerOptions {
  /** Tracing is on: each line written inside a span carries `trace_id` and `span_id` (none otherwise). */
  traced?: boolean;
}

/**
 * The service's logger: pino JSON, with the authorization and cookie headers censored should
 * anyone log them, a request shown by method, URL (credentials in its query censored), host and
 * client address only, and database errors without the values they were raised on.
 */
export function createLogger(
  level: Level | 'silent',
  destination?: DestinationStream,
  { traced = false }: LoggerOptions = {},
): FastifyBaseLogger {
  const options = {
    level,
    ...(traced ? { mixin: traceFields } : {}),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
    serializers: {
      err: serializeError,
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
