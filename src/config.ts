import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DATABASE_POOLERS = ['none', 'transaction'] as const;
export type DatabasePooler = (typeof DATABASE_POOLERS)[number];

/** Fastify's `trustProxy`: off, every hop, a hop count, or a list of proxy addresses/CIDRs. */
export type TrustProxy = boolean | number | string[];

export interface Config {
  port: number;
  /** Listening address: 127.0.0.1 by default, 0.0.0.0 with NODE_ENV=production. */
  host: string;
  dataDir: string;
  /** PostgreSQL; when absent the embedded PGlite database under `dataDir` is used. */
  databaseUrl: string | undefined;
  /**
   * Pooled PostgreSQL connections per instance, split between reads and writes (`poolBudget`; the two listening ones
   * come on top).
   */
  databasePoolSize: number;
  /**
   * What needs a session of its own (LISTEN, the migrations and their advisory lock): DATABASE_SESSION_URL, or
   * DATABASE_URL when unset. Required apart when `databasePooler` is `transaction`.
   */
  databaseSessionUrl: string | undefined;
  /**
   * `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer): no startup parameters, no named
   * prepared statements, settings from the database role (docs/decisions/0102-behind-a-transaction-pooler.md).
   */
  databasePooler: DatabasePooler;
  redisUrl: string | undefined;
  /** Prepended to every rate-limit key in Redis, so deployments sharing one Redis keep their own counters. */
  redisKeyPrefix: string;
  jwtSecret: string | undefined;
  /** Where the HS256 secret came from: the environment, or made once for the embedded default. */
  jwtSecretSource: 'env' | 'generated' | 'none';
  jwksUrl: string | undefined;
  jwtClockSkewSeconds: number;
  bootstrapOwners: string[];
  trustProxy: TrustProxy;
  /** Browser origins allowed to call the API (CORS); empty: no CORS headers at all. */
  corsOrigins: string[];
  logLevel: LogLevel;
  /** `pretty` lines for a person, `json` for collectors; `auto`: pretty on a terminal outside production. */
  logFormat: LogFormat;
  /** Whether this instance runs due scheduled jobs (SCHEDULED_JOBS=on|off). */
  scheduledJobs: boolean;
  production: boolean;
  /** GoTrue-compatible admin API; absent: the `local` identity provider (users table only). */
  identityAdminUrl: string | undefined;
  identityServiceKey: string | undefined;
  identityTimeoutMs: number;
  /** The Runtime service; absent: the runtime simulator runs in-process. */
  runtimeUrl: string | undefined;
  runtimeApiKey: string | undefined;
  runtimeConnectTimeoutMs: number;
  runtimeTimeoutMs: number;
  /** Stripe's secret key; absent: the `local` payment provider. */
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  /** Another Stripe API host (stripe-mock, a test server); absent: Stripe's own. */
  stripeApiBase: string | undefined;
  /**
   * Where players reach this service (the local payment provider's checkout page is served here);
   * absent: http://localhost:<PORT>.
   */
  publicBaseUrl: string | undefined;
  /** Origins checkout success/cancel URLs may point at; empty: any http(s) URL. */
  checkoutAllowedOrigins: string[];
  /** SMTP server (smtp:// or smtps://, credentials in the URL); absent: the outbox (recorded, never sent). */
  smtpUrl: string | undefined;
  /** The From of every message: `Name <address>` or an address. */
  mailFrom: string;
  /** Messages handed to the transport per second, per instance. */
  mailRatePerSecond: number;
  /** An address for List-Unsubscribe's mailto form (RFC 2369), besides the one-click URL; absent: URL only. */
  mailUnsubscribeMailto: string | undefined;
  /** Signs unsubscribe tokens; absent: derived from JWT_SECRET (see emailTokenSecret). */
  emailTokenSecret: string | undefined;
  /** The local object store's directory (used when no S3 bucket is set); default DATA_DIR/storage. */
  storageDir: string;
  /** An S3 bucket: objects are stored there through presigned URLs; absent: the local store. */
  storageS3Bucket: string | undefined;
  storageS3Region: string;
  /** An S3-compatible endpoint (MinIO, R2…), addressed path-style; absent: AWS. */
  storageS3Endpoint: string | undefined;
  /** Both or neither; neither: the AWS SDK's default credential chain (environment, instance role). */
  storageS3AccessKeyId: string | undefined;
  storageS3SecretAccessKey: string | undefined;
  /** Whether this instance probes, flushes its signals and evaluates the incident rules (INCIDENT_MONITOR=on|off). */
  incidentMonitor: boolean;
  /** Whether /docs serves the interactive API reference (DOCS_UI=on|off); /openapi.json is served either way. */
  docsUi: boolean;
  /** Seconds between two incident monitor ticks (probe, flush, evaluate). */
  incidentEvaluateSeconds: number;
  /** Requests under way in one instance past which new ones are answered 503 at once (0: no limit). */
  maxRequestsInFlight: number;
  /** Seconds a client has to send a request's line and headers, from its first byte or connection (408). */
  requestHeadersTimeoutSeconds: number;
  /** Longest silence while a request body arrives (408). */
  requestBodyTimeoutSeconds: number;
  /** Seconds a client has to send a whole request, headers and body (408). */
  requestTimeoutSeconds: number;
  /** Bodies of routes open without a token still arriving at once, past which a new one is 503 (0: no limit). */
  maxAnonymousUploads: number;
  /** Realtime sockets one instance holds open. */
  realtimeMaxSockets: number;
  /** Realtime sockets one user may hold open on one instance. */
  realtimeMaxSocketsPerUser: number;
  /**
   * After SIGTERM, how long the instance keeps serving with `/health/ready` at 503 before it stops
   * accepting: the time a load balancer needs to see the probe fail and send traffic elsewhere.
   */
  shutdownDelayMs: number;
  /** After the listener closes, how long in-flight work may take before it is cut and the process exits 1. */
  shutdownTimeoutMs: number;
  /** Port of the Prometheus listener (`GET /metrics`), apart from the API's; absent: no metrics at all. */
  metricsPort: number | undefined;
  /** Address of the Prometheus listener. */
  metricsHost: string;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP collector traces are exported to (`/v1/traces` under
   * it); absent: no tracing at all.
   */
  otelEndpoint: string | undefined;
  /** OTEL_SERVICE_NAME: the `service.name` of the exported spans. */
  otelServiceName: string;
  /** The built staff console served at /admin (`index.html`, `assets/`); default: the package's `console/dist`. */
  consoleDir: string;
  /** GoTrue's base URL as the staff's browsers reach it: the console signs staff in there (with the anon key). */
  consoleGotrueUrl: string | undefined;
  /** GoTrue's public anon key, handed to the console with the URL (both or neither). */
  consoleGotrueAnonKey: string | undefined;
  /** A grant of more credits than this asks the console's staff member to confirm it first. */
  consoleCreditConfirmAbove: number;
}

/** The package's own directory: this file is src/config.ts under tsx and dist/config.js once built. */
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where `npm run build` puts the console (Vite's outDir). */
export const DEFAULT_CONSOLE_DIR = join(PACKAGE_DIR, 'console', 'dist');

/** A setting that stops the start; the message is one line naming the setting. */
export class ConfigError extends Error {
  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MIN_JWT_SECRET_LENGTH = 32;

type Env = Record<string, string | undefined>;

function present(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be an integer from ${min} to ${max}, got ${raw}`);
  return value;
}

/** An integer setting with no default: unset means the feature it configures is off. */
function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return present(env, name) === undefined ? undefined : integer(env, name, min, min, max);
}

/** HOST's rule: a name or an address, nothing a listener could not bind. */
function hostSetting(env: Env, name: string, fallback: string): string {
  const host = present(env, name) ?? fallback;
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new ConfigError(name, `"${host}" is not a host name or address`);
  return host;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = present(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `must use ${protocols.map((p) => p.replace(':', '')).join(' or ')}, got ${parsed.protocol.replace(':', '')}`,
    );
  }
  return raw;
}

function trustProxy(env: Env): TrustProxy {
  const raw = present(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(
        'TRUST_PROXY',
        `expected true, false, a hop count or comma-separated addresses/CIDRs; "${entry}" is none of these`,
      );
    }
  }
  return entries;
}

function origins(env: Env, name: string): string[] {
  const raw = present(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let parsed: URL;
      try {
        parsed = new URL(entry);
      } catch {
        throw new ConfigError(name, `"${entry}" is not an origin like https://play.example.com`);
      }
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(name, `"${entry}" is not an origin like https://play.example.com`);
      }
      return parsed.origin;
    });
}

const ADDRESS = /^[^\s@<>:]+@[^\s@<>:]+$/;

function mailbox(env: Env, name: string, fallback: string): string {
  const raw = present(env, name) ?? fallback;
  const address = /<([^<>]+)>\s*$/.exec(raw)?.[1] ?? raw;
  if (!ADDRESS.test(address)) throw new ConfigError(name, `must be an address or "Name <address>", got "${raw}"`);
  return raw;
}

function address(env: Env, name: string): string | undefined {
  const raw = present(env, name);
  if (raw !== undefined && !ADDRESS.test(raw)) throw new ConfigError(name, `must be an email address, got "${raw}"`);
  return raw;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'on' || raw === 'true') return true;
  if (raw === 'off' || raw === 'false') return false;
  throw new ConfigError(name, `must be on or off, got "${raw}"`);
}

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

function logFormat(env: Env): LogFormat {
  const raw = present(env, 'LOG_FORMAT') ?? 'auto';
  if (!(LOG_FORMATS as readonly string[]).includes(raw)) {
    throw new ConfigError('LOG_FORMAT', `must be one of ${LOG_FORMATS.join(', ')}, got "${raw}"`);
  }
  return raw as LogFormat;
}

function databasePooler(env: Env): DatabasePooler {
  const raw = present(env, 'DATABASE_POOLER') ?? 'none';
  if (!(DATABASE_POOLERS as readonly string[]).includes(raw)) {
    throw new ConfigError('DATABASE_POOLER', `must be one of ${DATABASE_POOLERS.join(', ')}, got "${raw}"`);
  }
  return raw as DatabasePooler;
}

/**
 * The session URL and the pooler only mean something with DATABASE_URL; behind a transaction pooler
 * LISTEN and the migrations' lock need a URL of their own (a pooled server connection is handed
 * to other clients between transactions, taking the LISTEN or the lock with it).
 */
function databaseSession(env: Env, databaseUrl: string | undefined) {
  const sessionUrl = url(env, 'DATABASE_SESSION_URL', ['postgres:', 'postgresql:']);
  const pooler = databasePooler(env);
  if (databaseUrl === undefined && sessionUrl !== undefined)
    throw new ConfigError('DATABASE_URL', 'must be set when DATABASE_SESSION_URL is set');
  if (databaseUrl === undefined && pooler !== 'none')
    throw new ConfigError('DATABASE_URL', 'must be set when DATABASE_POOLER is set');
  if (pooler === 'transaction' && sessionUrl === undefined) {
    throw new ConfigError(
      'DATABASE_SESSION_URL',
      'must be set when DATABASE_POOLER=transaction: LISTEN and migrations need a session of their own ' +
        '(PostgreSQL itself, or a pool in session mode)',
    );
  }
  return { databaseSessionUrl: sessionUrl ?? databaseUrl, databasePooler: pooler };
}

function logLevel(env: Env): LogLevel {
  const raw = present(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw as LogLevel;
}

/** S3's bucket naming rules (lower case, digits, dots, hyphens; 3–63 characters). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The key prefix every release so far used: the default, so existing deployments keep their counters. */
const DEFAULT_REDIS_KEY_PREFIX = 'platform-api:rl:';
// Ends with ':' so one deployment's keys never run into another's (`eu` + `waitlist:` against `euwaitlist:`).
const KEY_PREFIX = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,98}:$/;
const PREFIX_RULE =
  '2-100 letters, digits or ".-_:", from a letter or digit to a final ":" ' + '(like "platform-api:eu:rl:")';

function matching(env: Env, name: string, pattern: RegExp, what: string): string | undefined {
  const raw = present(env, name);
  if (raw !== undefined && !pattern.test(raw)) throw new ConfigError(name, `must be ${what}, got "${raw}"`);
  return raw;
}

function bootstrapOwners(env: Env): string[] {
  const raw = present(env, 'BOOTSTRAP_OWNER');
  if (raw === undefined) return [];
  const subjects = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = subjects.find((s) => !UUID.test(s));
  if (bad !== undefined) throw new ConfigError('BOOTSTRAP_OWNER', `"${bad}" is not a uuid subject`);
  return [...new Set(subjects.map((s) => s.toLowerCase()))];
}

/**
 * Reads the environment into a typed config. Pure except for nothing: the dev secret is
 * resolved separately by `resolveDevSecret`, so tests can build configs without touching disk.
 */
export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const jwtSecret = present(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError('JWT_SECRET', `must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
  }
  const jwksUrl = url(env, 'JWKS_URL', ['http:', 'https:']);
  // Development (which prints an owner token) stays on loopback; production is meant to be reached.
  const host = hostSetting(env, 'HOST', env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
  const dataDir = resolve(present(env, 'DATA_DIR') ?? './data');

  const config: Config = {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    dataDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    ...databaseSession(env, databaseUrl),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: matching(env, 'REDIS_KEY_PREFIX', KEY_PREFIX, PREFIX_RULE) ?? DEFAULT_REDIS_KEY_PREFIX,
    jwtSecret,
    jwtSecretSource: jwtSecret === undefined ? 'none' : 'env',
    jwksUrl,
    jwtClockSkewSeconds: integer(env, 'JWT_CLOCK_SKEW', 30, 0, 300),
    bootstrapOwners: bootstrapOwners(env),
    trustProxy: trustProxy(env),
    logLevel: logLevel(env),
    logFormat: logFormat(env),
    scheduledJobs: onOff(env, 'SCHEDULED_JOBS', true),
    production: env.NODE_ENV === 'production',
    identityAdminUrl: url(env, 'IDENTITY_ADMIN_URL', ['http:', 'https:']),
    identityServiceKey: present(env, 'IDENTITY_SERVICE_KEY'),
    identityTimeoutMs: integer(env, 'IDENTITY_TIMEOUT_MS', 5_000, 100, 60_000),
    runtimeUrl: url(env, 'RUNTIME_URL', ['http:', 'https:']),
    runtimeApiKey: present(env, 'RUNTIME_API_KEY'),
    runtimeConnectTimeoutMs: integer(env, 'RUNTIME_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    runtimeTimeoutMs: integer(env, 'RUNTIME_TIMEOUT_MS', 10_000, 100, 120_000),
    stripeSecretKey: present(env, 'STRIPE_SECRET_KEY'),
    stripeWebhookSecret: present(env, 'STRIPE_WEBHOOK_SECRET'),
    stripeApiBase: url(env, 'STRIPE_API_BASE', ['http:', 'https:']),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']),
    checkoutAllowedOrigins: origins(env, 'CHECKOUT_ALLOWED_ORIGINS'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailbox(env, 'MAIL_FROM', 'Platform <no-reply@localhost>'),
    mailRatePerSecond: integer(env, 'MAIL_RATE_PER_SECOND', 10, 1, 1000),
    mailUnsubscribeMailto: address(env, 'MAIL_UNSUBSCRIBE_MAILTO'),
    emailTokenSecret: present(env, 'EMAIL_TOKEN_SECRET'),
    storageDir: resolve(present(env, 'STORAGE_DIR') ?? join(dataDir, 'storage')),
    storageS3Bucket: matching(
      env,
      'STORAGE_S3_BUCKET',
      BUCKET,
      'an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)',
    ),
    storageS3Region: matching(env, 'STORAGE_S3_REGION', REGION, 'a region like eu-west-1') ?? 'us-east-1',
    storageS3Endpoint: url(env, 'STORAGE_S3_ENDPOINT', ['http:', 'https:']),
    storageS3AccessKeyId: present(env, 'STORAGE_S3_ACCESS_KEY_ID'),
    storageS3SecretAccessKey: present(env, 'STORAGE_S3_SECRET_ACCESS_KEY'),
    incidentMonitor: onOff(env, 'INCIDENT_MONITOR', true),
    docsUi: onOff(env, 'DOCS_UI', true),
    incidentEvaluateSeconds: integer(env, 'INCIDENT_EVALUATE_SECONDS', 5, 1, 300),
    maxRequestsInFlight: integer(env, 'MAX_REQUESTS_IN_FLIGHT', 1_000, 0, 1_000_000),
    requestHeadersTimeoutSeconds: integer(env, 'REQUEST_HEADERS_TIMEOUT_SECONDS', 10, 1, 300),
    requestBodyTimeoutSeconds: integer(env, 'REQUEST_BODY_TIMEOUT_SECONDS', 10, 1, 300),
    requestTimeoutSeconds: integer(env, 'REQUEST_TIMEOUT_SECONDS', 60, 1, 3_600),
    maxAnonymousUploads: integer(env, 'MAX_ANONYMOUS_UPLOADS', 100, 0, 100_000),
    realtimeMaxSockets: integer(env, 'REALTIME_MAX_SOCKETS', 10_000, 1, 1_000_000),
    realtimeMaxSocketsPerUser: integer(env, 'REALTIME_MAX_SOCKETS_PER_USER', 8, 1, 1_000),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 120_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    metricsPort: optionalInteger(env, 'METRICS_PORT', 1, 65_535),
    // Loopback unless said otherwise: the numbers describe the service's inside, not for the internet.
    metricsHost: hostSetting(env, 'METRICS_HOST', '127.0.0.1'),
    otelEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    otelServiceName: present(env, 'OTEL_SERVICE_NAME') ?? 'platform-api',
    consoleDir: resolve(present(env, 'CONSOLE_DIR') ?? DEFAULT_CONSOLE_DIR),
    consoleGotrueUrl: url(env, 'CONSOLE_GOTRUE_URL', ['http:', 'https:']),
    consoleGotrueAnonKey: present(env, 'CONSOLE_GOTRUE_ANON_KEY'),
    consoleCreditConfirmAbove: integer(env, 'CONSOLE_CREDIT_CONFIRM_ABOVE', 500, 0, 1_000_000),
  };
  if (config.requestTimeoutSeconds < config.requestHeadersTimeoutSeconds) {
    const headers = config.requestHeadersTimeoutSeconds;
    throw new ConfigError('REQUEST_TIMEOUT_SECONDS', `must be at least REQUEST_HEADERS_TIMEOUT_SECONDS (${headers})`);
  }
  // One port cannot be both: the metrics would share the public listener, which is what they must not do.
  if (config.metricsPort !== undefined && config.metricsPort === config.port) {
    throw new ConfigError(
      'METRICS_PORT',
      `must differ from PORT (${config.port}): metrics have a listener of their own`,
    );
  }
  if (config.emailTokenSecret !== undefined && config.emailTokenSecret.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError('EMAIL_TOKEN_SECRET', `must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
  }

  if (config.stripeSecretKey !== undefined && config.stripeWebhookSecret === undefined) {
    throw new ConfigError(
      'STRIPE_WEBHOOK_SECRET',
      'must be set when STRIPE_SECRET_KEY is set (payments are fulfilled from signed webhooks)',
    );
  }
  if (config.identityAdminUrl !== undefined && config.identityServiceKey === undefined) {
    throw new ConfigError('IDENTITY_SERVICE_KEY', 'must be set when IDENTITY_ADMIN_URL is set');
  }
  if (config.runtimeUrl !== undefined && config.runtimeApiKey === undefined) {
    throw new ConfigError('RUNTIME_API_KEY', 'must be set when RUNTIME_URL is set');
  }
  checkStorage(config);
  // The console needs both to sign staff in at GoTrue; one alone is a half-made configuration.
  if (config.consoleGotrueUrl !== undefined && config.consoleGotrueAnonKey === undefined) {
    throw new ConfigError('CONSOLE_GOTRUE_ANON_KEY', 'must be set when CONSOLE_GOTRUE_URL is set');
  }
  if (config.consoleGotrueAnonKey !== undefined && config.consoleGotrueUrl === undefined) {
    throw new ConfigError('CONSOLE_GOTRUE_URL', 'must be set when CONSOLE_GOTRUE_ANON_KEY is set');
  }
  // Production never runs the embedded development mode: no made-up secret, no printed owner token.
  if (config.production && databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_URL',
      'must be set when NODE_ENV=production ' +
        '(the embedded database and its development owner token are for development only)',
    );
  }
  if (config.production && jwtSecret === undefined && jwksUrl === undefined) {
    throw new ConfigError(
      'JWT_SECRET',
      'set JWT_SECRET or JWKS_URL when NODE_ENV=production ' + '(the made-up dev secret is for development only)',
    );
  }
  if (databaseUrl !== undefined && jwtSecret === undefined && jwksUrl === undefined) {
    throw new ConfigError(
      'JWT_SECRET',
      'set JWT_SECRET or JWKS_URL when DATABASE_URL is set (the made-up dev secret is for the embedded database only)',
    );
  }
  return config;
}

/** The S3 settings only mean something with a bucket, and credentials come in pairs (never echoed). */
function checkStorage(config: Config): void {
  if (config.storageS3Bucket === undefined) {
    const settings: Array<[string, string | undefined]> = [
      ['STORAGE_S3_ENDPOINT', config.storageS3Endpoint],
      ['STORAGE_S3_ACCESS_KEY_ID', config.storageS3AccessKeyId],
      ['STORAGE_S3_SECRET_ACCESS_KEY', config.storageS3SecretAccessKey],
    ];
    const stray = settings.find(([, value]) => value !== undefined)?.[0];
    if (stray !== undefined) throw new ConfigError('STORAGE_S3_BUCKET', `must be set when ${stray} is set`);
  }
  if (config.storageS3AccessKeyId !== undefined && config.storageS3SecretAccessKey === undefined) {
    throw new ConfigError('STORAGE_S3_SECRET_ACCESS_KEY', 'must be set when STORAGE_S3_ACCESS_KEY_ID is set');
  }
  if (config.storageS3SecretAccessKey !== undefined && config.storageS3AccessKeyId === undefined) {
    throw new ConfigError('STORAGE_S3_ACCESS_KEY_ID', 'must be set when STORAGE_S3_SECRET_ACCESS_KEY is set');
  }
}

/** Where players reach this service: PUBLIC_BASE_URL, else this instance on localhost. */
export function publicBaseUrlOf(config: Pick<Config, 'publicBaseUrl' | 'port'>): string {
  return config.publicBaseUrl ?? `http://localhost:${config.port}`;
}

/**
 * The configured key of unsubscribe tokens: EMAIL_TOKEN_SECRET, else one derived from the JWT
 * secret (so the unsubscribe key is never a token-signing key); undefined when neither is set
 * (a JWKS-only deployment), and the kernel then keeps one of its own in the database.
 */
export function configuredEmailTokenSecret(config: Pick<Config, 'emailTokenSecret' | 'jwtSecret'>): string | undefined {
  if (config.emailTokenSecret !== undefined) return config.emailTokenSecret;
  if (config.jwtSecret === undefined) return undefined;
  return createHmac('sha256', config.jwtSecret).update('platform-api email tokens v1').digest('base64url');
}

/**
 * The embedded default with no JWT_SECRET and no JWKS_URL: make a random secret once and keep
 * it in DATA_DIR, so tokens minted by `platform-api token` keep working across restarts.
 */
export function resolveDevSecret(config: Config): Config {
  if (config.jwtSecret !== undefined || config.jwksUrl !== undefined || config.databaseUrl !== undefined) return config;
  // loadConfig already refuses this; a config built another way must not get a dev secret either.
  if (config.production) return config;
  ensureDataDir(config.dataDir);
  const file = join(config.dataDir, 'jwt-secret');
  const secret = inDataDir(file, () => {
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    return readFileSync(file, 'utf8').trim();
  });
  if (secret.length < MIN_JWT_SECRET_LENGTH)
    throw new ConfigError(
      'DATA_DIR',
      `${file} holds a secret shorter than ${MIN_JWT_SECRET_LENGTH} characters; delete it to make a new one`,
    );
  return { ...config, jwtSecret: secret, jwtSecretSource: 'generated' };
}

/** Makes DATA_DIR (and its parents) if missing; a directory that cannot be made stops the start, named. */
export function ensureDataDir(dataDir: string): void {
  inDataDir(dataDir, () => mkdirSync(dataDir, { recursive: true }));
}

/** A file operation under DATA_DIR; its failure (permissions, a file where a directory should be) names DATA_DIR. */
function inDataDir<T>(path: string, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    throw new ConfigError('DATA_DIR', `cannot use ${path}: ${(error as Error).message}`);
  }
}

/** Settings whose values are credentials. */
const SECRET_SETTINGS = [
  'JWT_SECRET',
  'EMAIL_TOKEN_SECRET',
  'IDENTITY_SERVICE_KEY',
  'RUNTIME_API_KEY',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STORAGE_S3_SECRET_ACCESS_KEY',
];
/** URL settings that may carry a password. */
const CREDENTIAL_URL_SETTINGS = [
  'DATABASE_URL',
  'DATABASE_SESSION_URL',
  'REDIS_URL',
  'SMTP_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];
/** Shorter values are not worth hiding, and would blank out unrelated text (a port, a word). */
const MIN_REDACTED_LENGTH = 4;

/**
 * `text` with every configured credential replaced by `***`: the secrets above, and each URL
 * setting that holds a password (the whole URL, and the password alone, encoded or not). For
 * messages printed at start, where a driver may quote what it was given.
 */
export function redactSecrets(text: string, env: Env = process.env): string {
  const secrets = new Set<string>();
  for (const name of SECRET_SETTINGS) secrets.add(present(env, name) ?? '');
  for (const name of CREDENTIAL_URL_SETTINGS) {
    const raw = present(env, name);
    if (raw === undefined) continue;
    let password: string;
    try {
      password = new URL(raw).password;
    } catch {
      // Not a URL: it may still hold a password somewhere, so none of it is shown.
      secrets.add(raw);
      continue;
    }
    if (password === '') continue;
    secrets.add(raw);
    secrets.add(password);
    try {
      secrets.add(decodeURIComponent(password));
    } catch {
      // A malformed escape: the encoded form above is what could be quoted.
    }
  }
  const hidden = [...secrets]
    .filter((secret) => secret.length >= MIN_REDACTED_LENGTH)
    .sort((a, b) => b.length - a.length);
  return hidden.reduce((redacted, secret) => redacted.split(secret).join('***'), text);
}
