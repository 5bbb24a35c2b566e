import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, publicBaseUrlOf, redactSecrets, type Config } from '../config.js';
import type { CommandGroup, CommandIo } from './command.js';

export const CONFIG_CHECK_USAGE = `Usage: platform-api config check [--json]

Validates the settings in the environment as "serve" would, without starting anything: no
listener, no database connection, nothing written to DATA_DIR. Prints every effective setting
(secrets, keys and URL passwords as ***) and what production still needs, then exits 0. An
invalid setting prints the same "Configuration error: ..." line as serve and exits 1.
--json prints { settings: { NAME: { value, source } }, production_needs: [{ setting, need }] }.`;

/** How a setting's effective value is shown. */
type Shown = string | undefined;

/** Each setting as config.ts reads it: its variable and its effective value, shown safe. */
const SETTINGS: Array<[name: string, show: (config: Config) => Shown]> = [
  ['NODE_ENV', (c) => (c.production ? 'production' : undefined)],
  ['PORT', (c) => String(c.port)],
  ['HOST', (c) => c.host],
  ['DATA_DIR', (c) => c.dataDir],
  ['DATABASE_URL', (c) => maskedUrl(c.databaseUrl)],
  ['DATABASE_POOL_SIZE', (c) => String(c.databasePoolSize)],
  ['DATABASE_SESSION_URL', (c) => maskedUrl(c.databaseSessionUrl)],
  ['DATABASE_POOLER', (c) => c.databasePooler],
  ['REDIS_URL', (c) => maskedUrl(c.redisUrl)],
  ['REDIS_KEY_PREFIX', (c) => c.redisKeyPrefix],
  ['JWT_SECRET', (c) => masked(c.jwtSecret)],
  ['JWKS_URL', (c) => maskedUrl(c.jwksUrl)],
  ['JWT_CLOCK_SKEW', (c) => String(c.jwtClockSkewSeconds)],
  ['BOOTSTRAP_OWNER', (c) => listed(c.bootstrapOwners)],
  ['TRUST_PROXY', (c) => (Array.isArray(c.trustProxy) ? c.trustProxy.join(',') : String(c.trustProxy))],
  ['CORS_ORIGINS', (c) => listed(c.corsOrigins)],
  ['SCHEDULED_JOBS', (c) => onOff(c.scheduledJobs)],
  ['INCIDENT_MONITOR', (c) => onOff(c.incidentMonitor)],
  ['DOCS_UI', (c) => onOff(c.docsUi)],
  ['INCIDENT_EVALUATE_SECONDS', (c) => String(c.incidentEvaluateSeconds)],
  ['MAX_REQUESTS_IN_FLIGHT', (c) => String(c.maxRequestsInFlight)],
  ['MAX_ANONYMOUS_UPLOADS', (c) => String(c.maxAnonymousUploads)],
  ['REQUEST_HEADERS_TIMEOUT_SECONDS', (c) => String(c.requestHeadersTimeoutSeconds)],
  ['REQUEST_BODY_TIMEOUT_SECONDS', (c) => String(c.requestBodyTimeoutSeconds)],
  ['REQUEST_TIMEOUT_SECONDS', (c) => String(c.requestTimeoutSeconds)],
  ['REALTIME_MAX_SOCKETS', (c) => String(c.realtimeMaxSockets)],
  ['REALTIME_MAX_SOCKETS_PER_USER', (c) => String(c.realtimeMaxSocketsPerUser)],
  ['LOG_LEVEL', (c) => c.logLevel],
  ['LOG_FORMAT', (c) => c.logFormat],
  ['IDENTITY_ADMIN_URL', (c) => maskedUrl(c.identityAdminUrl)],
  ['IDENTITY_SERVICE_KEY', (c) => masked(c.identityServiceKey)],
  ['IDENTITY_TIMEOUT_MS', (c) => String(c.identityTimeoutMs)],
  ['RUNTIME_URL', (c) => maskedUrl(c.runtimeUrl)],
  ['RUNTIME_API_KEY', (c) => masked(c.runtimeApiKey)],
  ['RUNTIME_CONNECT_TIMEOUT_MS', (c) => String(c.runtimeConnectTimeoutMs)],
  ['RUNTIME_TIMEOUT_MS', (c) => String(c.runtimeTimeoutMs)],
  ['STRIPE_SECRET_KEY', (c) => masked(c.stripeSecretKey)],
  ['STRIPE_WEBHOOK_SECRET', (c) => masked(c.stripeWebhookSecret)],
  ['STRIPE_API_BASE', (c) => maskedUrl(c.stripeApiBase)],
  ['PUBLIC_BASE_URL', (c) => publicBaseUrlOf(c)],
  ['CHECKOUT_ALLOWED_ORIGINS', (c) => listed(c.checkoutAllowedOrigins)],
  ['SMTP_URL', (c) => maskedUrl(c.smtpUrl)],
  ['MAIL_FROM', (c) => c.mailFrom],
  ['MAIL_RATE_PER_SECOND', (c) => String(c.mailRatePerSecond)],
  ['MAIL_UNSUBSCRIBE_MAILTO', (c) => c.mailUnsubscribeMailto],
  ['EMAIL_TOKEN_SECRET', (c) => masked(c.emailTokenSecret)],
  ['STORAGE_DIR', (c) => c.storageDir],
  ['STORAGE_S3_BUCKET', (c) => c.storageS3Bucket],
  ['STORAGE_S3_REGION', (c) => c.storageS3Region],
  ['STORAGE_S3_ENDPOINT', (c) => maskedUrl(c.storageS3Endpoint)],
  ['STORAGE_S3_ACCESS_KEY_ID', (c) => masked(c.storageS3AccessKeyId)],
  ['STORAGE_S3_SECRET_ACCESS_KEY', (c) => masked(c.storageS3SecretAccessKey)],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', (c) => maskedUrl(c.otelEndpoint)],
  ['OTEL_SERVICE_NAME', (c) => c.otelServiceName],
  ['CONSOLE_DIR', (c) => c.consoleDir],
  ['CONSOLE_GOTRUE_URL', (c) => maskedUrl(c.consoleGotrueUrl)],
  ['CONSOLE_GOTRUE_ANON_KEY', (c) => c.consoleGotrueAnonKey],
  ['CONSOLE_CREDIT_CONFIRM_ABOVE', (c) => String(c.consoleCreditConfirmAbove)],
];

const MASK = '***';

function masked(value: string | undefined): Shown {
  return value === undefined ? undefined : MASK;
}

/** Query parameters whose value may be a credential (a JWKS URL with a key, a DSN with a password). */
const SECRET_PARAMETER = /pass|secret|token|key|auth|sig|credential/i;

/** A URL with its password, and any query value that looks like a credential, as ***. */
export function maskedUrl(raw: string | undefined): Shown {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return MASK;
  }
  if (url.password !== '') url.password = MASK;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, MASK);
  }
  // URL encodes the mask's asterisks in a query: shown as typed.
  return url.toString().replaceAll('%2A%2A%2A', MASK);
}

function listed(values: string[]): Shown {
  return values.length === 0 ? undefined : values.join(',');
}

function onOff(value: boolean): string {
  return value ? 'on' : 'off';
}

export interface ProductionNeed {
  setting: string;
  need: string;
}

/**
 * What stands between this configuration and production, from what config.ts knows: each
 * development stand-in still in use (embedded database, made-up secret, local identity,
 * payments, mail, storage, in-process runtime, per-instance rate limits) and each setting a
 * production deployment should not leave at its default.
 */
export function productionNeeds(config: Config): ProductionNeed[] {
  const needs: ProductionNeed[] = [];
  const need = (setting: string, text: string) => needs.push({ setting, need: text });
  if (!config.production) need('NODE_ENV', 'set to production (per-request logs off, development modes refused)');
  if (config.databaseUrl === undefined)
    need('DATABASE_URL', 'the embedded PGlite database is for development: set a PostgreSQL URL');
  if (config.jwtSecret === undefined && config.jwksUrl === undefined)
    need('JWT_SECRET', 'set JWT_SECRET or JWKS_URL (the made-up secret in DATA_DIR is for development)');
  if (config.identityAdminUrl === undefined)
    need(
      'IDENTITY_ADMIN_URL',
      "the local identity provider knows only this service's tables: set the GoTrue admin API",
    );
  if (config.redisUrl === undefined)
    need('REDIS_URL', 'rate limits are counted per instance in memory: set Redis to share them');
  if (config.stripeSecretKey === undefined)
    need('STRIPE_SECRET_KEY', 'the local payment provider takes no money: set Stripe (and STRIPE_WEBHOOK_SECRET)');
  if (config.smtpUrl === undefined)
    need('SMTP_URL', 'mail is recorded in the outbox and never sent: set an SMTP server');
  if (config.storageS3Bucket === undefined)
    need('STORAGE_S3_BUCKET', "objects are stored on this instance's disk (STORAGE_DIR): set an S3 bucket");
  if (config.runtimeUrl === undefined)
    need('RUNTIME_URL', 'each instance runs its own in-process runtime simulator: set the Runtime service');
  if (config.publicBaseUrl === undefined || !config.publicBaseUrl.startsWith('https:'))
    need('PUBLIC_BASE_URL', `links are built on ${publicBaseUrlOf(config)}: set the https address players reach`);
  if (config.checkoutAllowedOrigins.length === 0)
    need('CHECKOUT_ALLOWED_ORIGINS', 'checkout may send players back to any http(s) URL: list your origins');
  if (/@localhost>?$/.test(config.mailFrom))
    need('MAIL_FROM', `"${config.mailFrom}" is not an address mail can come from`);
  if (config.logLevel === 'debug' || config.logLevel === 'trace')
    need('LOG_LEVEL', `${config.logLevel} logs every detail: use info or warn`);
  return needs;
}

interface SettingView {
  value: string | null;
  source: 'environment' | 'default';
}

function settingViews(config: Config, env: CommandIo['env']): Record<string, SettingView> {
  const views: Record<string, SettingView> = {};
  for (const [name, show] of SETTINGS) {
    const given = env[name] !== undefined && env[name]!.trim() !== '';
    views[name] = { value: show(config) ?? null, source: given ? 'environment' : 'default' };
  }
  // The embedded default's made-up secret: where it is (or will be), never its value.
  if (config.jwtSecret === undefined && config.jwksUrl === undefined && !config.production && !config.databaseUrl) {
    const file = join(config.dataDir, 'jwt-secret');
    views.JWT_SECRET = {
      value: `${MASK} (made once in ${file}${existsSync(file) ? '' : ', not yet'})`,
      source: 'default',
    };
  }
  return views;
}

function textReport(config: Config, settings: Record<string, SettingView>, needs: ProductionNeed[]): string {
  const width = Math.max(...Object.keys(settings).map((name) => name.length));
  const lines = [
    `Configuration is valid${config.production ? ' (NODE_ENV=production)' : ''}.`,
    '',
    'Effective settings:',
  ];
  for (const [name, { value, source }] of Object.entries(settings)) {
    const shown = value ?? '(not set)';
    lines.push(`  ${name.padEnd(width)}  ${shown}${source === 'default' && value !== null ? '  (default)' : ''}`);
  }
  lines.push('');
  if (needs.length === 0) lines.push('Production needs nothing more.');
  else {
    lines.push(`Production still needs (${needs.length}):`);
    for (const { setting, need } of needs) lines.push(`  - ${setting}: ${need}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function configCheckCommand(args: string[], io: CommandIo): Promise<void> {
  const env = io.env;
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  // The same reading as serve's, so the same error; no dev secret is made, nothing touches DATA_DIR.
  const config = loadConfig(env);
  const settings = settingViews(config, env);
  const needs = productionNeeds(config);
  const report = values.json
    ? `${JSON.stringify({ settings, production_needs: needs }, null, 2)}\n`
    : textReport(config, settings, needs);
  // A second guard: whatever a value above quoted, no configured credential is printed.
  io.stdout.write(redactSecrets(report, env));
}

export const CONFIG: CommandGroup = {
  summary: 'The settings, as serve would read them',
  subcommands: {
    check: {
      summary: 'validate the environment, show the effective settings (secrets masked) and what production needs',
      usage: CONFIG_CHECK_USAGE,
      run: configCheckCommand,
    },
  },
};
