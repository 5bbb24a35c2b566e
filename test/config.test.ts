import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  configuredEmailTokenSecret,
  DEFAULT_CONSOLE_DIR,
  loadConfig,
  redactSecrets,
  resolveDevSecret,
  type Config,
} from '../src/config.js';
import { cliInProcess } from './cli/command-line.js';
import { createUser, startTestApp } from './helpers/app.js';

const SECRET = 'cli-test-secret-0123456789-abcdefghijklmnop';
const OWNER_A = '6F1C1C57-1111-4000-8000-00000000000A';
const OWNER_B = '6f1c1c57-2222-4000-8000-00000000000b';

/** The message of the ConfigError `env` is refused with (the test fails if it is not refused so). */
function refusalOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('defaults every setting', () => {
    expect(loadConfig({})).toStrictEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      databasePoolSize: 10,
      databaseSessionUrl: undefined,
      databasePooler: 'none',
      redisUrl: undefined,
      redisKeyPrefix: 'platform-api:rl:',
      jwtSecret: undefined,
      jwtSecretSource: 'none',
      jwksUrl: undefined,
      jwtClockSkewSeconds: 30,
      bootstrapOwners: [],
      trustProxy: false,
      logLevel: 'info',
      logFormat: 'auto',
      scheduledJobs: true,
      production: false,
      identityAdminUrl: undefined,
      identityServiceKey: undefined,
      identityTimeoutMs: 5_000,
      runtimeUrl: undefined,
      runtimeApiKey: undefined,
      runtimeConnectTimeoutMs: 2_000,
      runtimeTimeoutMs: 10_000,
      stripeSecretKey: undefined,
      stripeWebhookSecret: undefined,
      stripeApiBase: undefined,
      publicBaseUrl: undefined,
      checkoutAllowedOrigins: [],
      corsOrigins: [],
      smtpUrl: undefined,
      mailFrom: 'Platform <no-reply@localhost>',
      mailRatePerSecond: 10,
      mailUnsubscribeMailto: undefined,
      emailTokenSecret: undefined,
      storageDir: resolve('./data/storage'),
      storageS3Bucket: undefined,
      storageS3Region: 'us-east-1',
      storageS3Endpoint: undefined,
      storageS3AccessKeyId: undefined,
      storageS3SecretAccessKey: undefined,
      incidentMonitor: true,
      docsUi: true,
      incidentEvaluateSeconds: 5,
      maxRequestsInFlight: 1000,
      requestHeadersTimeoutSeconds: 10,
      requestBodyTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
      maxAnonymousUploads: 100,
      realtimeMaxSockets: 10_000,
      realtimeMaxSocketsPerUser: 8,
      shutdownDelayMs: 0,
      shutdownTimeoutMs: 10_000,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      otelEndpoint: undefined,
      otelServiceName: 'platform-api',
      consoleDir: DEFAULT_CONSOLE_DIR,
      consoleGotrueUrl: undefined,
      consoleGotrueAnonKey: undefined,
      consoleCreditConfirmAbove: 500,
    } satisfies Config);
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '9090',
      HOST: '127.0.0.1',
      DATA_DIR: 'var/pa',
      DATABASE_URL: 'postgresql://app@db:5432/platform',
      REDIS_URL: 'rediss://cache:6380',
      REDIS_KEY_PREFIX: 'platform-api:eu-1:rl:',
      JWT_SECRET: ` ${SECRET} `,
      JWKS_URL: 'https://id.example.test/.well-known/jwks.json',
      JWT_CLOCK_SKEW: '5',
      BOOTSTRAP_OWNER: `${OWNER_A}, ${OWNER_B},${OWNER_A.toLowerCase()}`,
      TRUST_PROXY: '1',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      SCHEDULED_JOBS: 'off',
      NODE_ENV: 'production',
      IDENTITY_ADMIN_URL: 'https://auth.example.test/auth/v1',
      IDENTITY_SERVICE_KEY: 'service-role-key',
      IDENTITY_TIMEOUT_MS: '3000',
      RUNTIME_URL: 'https://runtime.internal:8443',
      RUNTIME_API_KEY: 'runtime-key',
      RUNTIME_CONNECT_TIMEOUT_MS: '500',
      RUNTIME_TIMEOUT_MS: '20000',
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_WEBHOOK_SECRET: 'whsec_123',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      PUBLIC_BASE_URL: 'https://api.example.test',
      CHECKOUT_ALLOWED_ORIGINS: 'https://play.example.test, http://localhost:3000/',
      CORS_ORIGINS: 'https://admin.example.test,https://play.example.test/',
      SMTP_URL: 'smtps://mailer:secret@smtp.example.test:465',
      MAIL_FROM: 'Game Platform <news@example.test>',
      MAIL_RATE_PER_SECOND: '25',
      MAIL_UNSUBSCRIBE_MAILTO: 'unsubscribe@example.test',
      EMAIL_TOKEN_SECRET: 'e'.repeat(40),
      STORAGE_DIR: 'var/objects',
      STORAGE_S3_BUCKET: 'platform-avatars',
      STORAGE_S3_REGION: 'eu-west-1',
      STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000',
      STORAGE_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      STORAGE_S3_SECRET_ACCESS_KEY: 's3-secret',
      INCIDENT_MONITOR: 'off',
      DOCS_UI: 'off',
      INCIDENT_EVALUATE_SECONDS: '15',
      MAX_REQUESTS_IN_FLIGHT: '0',
      REQUEST_HEADERS_TIMEOUT_SECONDS: '5',
      REQUEST_BODY_TIMEOUT_SECONDS: '20',
      REQUEST_TIMEOUT_SECONDS: '120',
      MAX_ANONYMOUS_UPLOADS: '0',
      REALTIME_MAX_SOCKETS: '500',
      REALTIME_MAX_SOCKETS_PER_USER: '3',
      SHUTDOWN_DELAY_MS: '5000',
      SHUTDOWN_TIMEOUT_MS: '30000',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'platform-api-eu',
      DATABASE_POOL_SIZE: '30',
      CONSOLE_DIR: 'var/console',
      CONSOLE_GOTRUE_URL: 'https://auth.example.test/auth/v1',
      CONSOLE_GOTRUE_ANON_KEY: 'anon-key',
      CONSOLE_CREDIT_CONFIRM_ABOVE: '2000',
    });
    expect(config).toStrictEqual({
      port: 9090,
      host: '127.0.0.1',
      dataDir: resolve('var/pa'),
      databaseUrl: 'postgresql://app@db:5432/platform',
      databasePoolSize: 30,
      databaseSessionUrl: 'postgresql://app@db:5432/platform',
      databasePooler: 'none',
      redisUrl: 'rediss://cache:6380',
      redisKeyPrefix: 'platform-api:eu-1:rl:',
      jwtSecret: SECRET,
      jwtSecretSource: 'env',
      jwksUrl: 'https://id.example.test/.well-known/jwks.json',
      jwtClockSkewSeconds: 5,
      bootstrapOwners: [OWNER_A.toLowerCase(), OWNER_B],
      trustProxy: 1,
      logLevel: 'debug',
      logFormat: 'json',
      scheduledJobs: false,
      production: true,
      identityAdminUrl: 'https://auth.example.test/auth/v1',
      identityServiceKey: 'service-role-key',
      identityTimeoutMs: 3_000,
      runtimeUrl: 'https://runtime.internal:8443',
      runtimeApiKey: 'runtime-key',
      runtimeConnectTimeoutMs: 500,
      runtimeTimeoutMs: 20_000,
      stripeSecretKey: 'sk_test_123',
      stripeWebhookSecret: 'whsec_123',
      stripeApiBase: 'http://127.0.0.1:12111',
      publicBaseUrl: 'https://api.example.test',
      checkoutAllowedOrigins: ['https://play.example.test', 'http://localhost:3000'],
      corsOrigins: ['https://admin.example.test', 'https://play.example.test'],
      smtpUrl: 'smtps://mailer:secret@smtp.example.test:465',
      mailFrom: 'Game Platform <news@example.test>',
      mailRatePerSecond: 25,
      mailUnsubscribeMailto: 'unsubscribe@example.test',
      emailTokenSecret: 'e'.repeat(40),
      storageDir: resolve('var/objects'),
      storageS3Bucket: 'platform-avatars',
      storageS3Region: 'eu-west-1',
      storageS3Endpoint: 'http://127.0.0.1:9000',
      storageS3AccessKeyId: 'AKIAEXAMPLE',
      storageS3SecretAccessKey: 's3-secret',
      incidentMonitor: false,
      docsUi: false,
      incidentEvaluateSeconds: 15,
      maxRequestsInFlight: 0,
      requestHeadersTimeoutSeconds: 5,
      requestBodyTimeoutSeconds: 20,
      requestTimeoutSeconds: 120,
      maxAnonymousUploads: 0,
      realtimeMaxSockets: 500,
      realtimeMaxSocketsPerUser: 3,
      shutdownDelayMs: 5_000,
      shutdownTimeoutMs: 30_000,
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      otelEndpoint: 'http://collector:4318',
      otelServiceName: 'platform-api-eu',
      consoleDir: resolve('var/console'),
      consoleGotrueUrl: 'https://auth.example.test/auth/v1',
      consoleGotrueAnonKey: 'anon-key',
      consoleCreditConfirmAbove: 2000,
    } satisfies Config);
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '  ', LOG_LEVEL: '', JWT_SECRET: ' ', DATA_DIR: '' })).toStrictEqual(loadConfig({}));
  });

  it('accepts the bounds', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ JWT_CLOCK_SKEW: '0' }).jwtClockSkewSeconds).toBe(0);
    expect(loadConfig({ JWT_CLOCK_SKEW: '300' }).jwtClockSkewSeconds).toBe(300);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toBe('x'.repeat(32));
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    for (const format of ['auto', 'json', 'pretty']) expect(loadConfig({ LOG_FORMAT: format }).logFormat).toBe(format);
  });

  const malformed: Array<{ env: Record<string, string>; setting: string }> = [
    { env: { PORT: 'abc' }, setting: 'PORT' },
    { env: { PORT: '70000' }, setting: 'PORT' },
    { env: { PORT: '-1' }, setting: 'PORT' },
    { env: { PORT: '80.5' }, setting: 'PORT' },
    { env: { HOST: 'bad host' }, setting: 'HOST' },
    { env: { LOG_LEVEL: 'verbose' }, setting: 'LOG_LEVEL' },
    { env: { LOG_FORMAT: 'text' }, setting: 'LOG_FORMAT' },
    { env: { SCHEDULED_JOBS: 'sometimes' }, setting: 'SCHEDULED_JOBS' },
    { env: { INCIDENT_MONITOR: 'maybe' }, setting: 'INCIDENT_MONITOR' },
    { env: { DOCS_UI: 'maybe' }, setting: 'DOCS_UI' },
    { env: { INCIDENT_EVALUATE_SECONDS: '0' }, setting: 'INCIDENT_EVALUATE_SECONDS' },
    { env: { MAX_REQUESTS_IN_FLIGHT: '-1' }, setting: 'MAX_REQUESTS_IN_FLIGHT' },
    { env: { REQUEST_HEADERS_TIMEOUT_SECONDS: '0' }, setting: 'REQUEST_HEADERS_TIMEOUT_SECONDS' },
    { env: { REQUEST_BODY_TIMEOUT_SECONDS: '301' }, setting: 'REQUEST_BODY_TIMEOUT_SECONDS' },
    { env: { REQUEST_TIMEOUT_SECONDS: '5', REQUEST_HEADERS_TIMEOUT_SECONDS: '6' }, setting: 'REQUEST_TIMEOUT_SECONDS' },
    { env: { MAX_ANONYMOUS_UPLOADS: 'many' }, setting: 'MAX_ANONYMOUS_UPLOADS' },
    { env: { REALTIME_MAX_SOCKETS: '0' }, setting: 'REALTIME_MAX_SOCKETS' },
    { env: { REALTIME_MAX_SOCKETS_PER_USER: '0' }, setting: 'REALTIME_MAX_SOCKETS_PER_USER' },
    { env: { SHUTDOWN_DELAY_MS: '120001' }, setting: 'SHUTDOWN_DELAY_MS' },
    { env: { SHUTDOWN_TIMEOUT_MS: '99' }, setting: 'SHUTDOWN_TIMEOUT_MS' },
    { env: { SHUTDOWN_TIMEOUT_MS: '10s' }, setting: 'SHUTDOWN_TIMEOUT_MS' },
    { env: { METRICS_PORT: '0' }, setting: 'METRICS_PORT' },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, setting: 'OTEL_EXPORTER_OTLP_ENDPOINT' },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, setting: 'OTEL_EXPORTER_OTLP_ENDPOINT' },
    { env: { METRICS_PORT: '65536' }, setting: 'METRICS_PORT' },
    { env: { METRICS_PORT: 'ninety' }, setting: 'METRICS_PORT' },
    { env: { METRICS_PORT: '8080' }, setting: 'METRICS_PORT' },
    { env: { METRICS_HOST: 'bad host' }, setting: 'METRICS_HOST' },
    { env: { DATABASE_POOL_SIZE: '0' }, setting: 'DATABASE_POOL_SIZE' },
    { env: { DATABASE_POOL_SIZE: '1001' }, setting: 'DATABASE_POOL_SIZE' },
    { env: { DATABASE_URL: 'mysql://x', JWT_SECRET: SECRET }, setting: 'DATABASE_URL' },
    { env: { DATABASE_URL: 'not a url', JWT_SECRET: SECRET }, setting: 'DATABASE_URL' },
    { env: { DATABASE_SESSION_URL: 'postgres://db/platform' }, setting: 'DATABASE_URL' },
    { env: { DATABASE_POOLER: 'transaction' }, setting: 'DATABASE_URL' },
    {
      env: { DATABASE_URL: 'postgres://bouncer/platform', DATABASE_POOLER: 'transaction', JWT_SECRET: SECRET },
      setting: 'DATABASE_SESSION_URL',
    },
    {
      env: { DATABASE_URL: 'postgres://bouncer/platform', DATABASE_POOLER: 'statement', JWT_SECRET: SECRET },
      setting: 'DATABASE_POOLER',
    },
    {
      env: { DATABASE_URL: 'postgres://db/platform', DATABASE_SESSION_URL: 'redis://db', JWT_SECRET: SECRET },
      setting: 'DATABASE_SESSION_URL',
    },
    { env: { REDIS_URL: 'http://x' }, setting: 'REDIS_URL' },
    { env: { JWKS_URL: 'ftp://x' }, setting: 'JWKS_URL' },
    { env: { JWKS_URL: '/relative/jwks.json' }, setting: 'JWKS_URL' },
    { env: { JWT_SECRET: 'x'.repeat(31) }, setting: 'JWT_SECRET' },
    { env: { BOOTSTRAP_OWNER: 'not-a-uuid' }, setting: 'BOOTSTRAP_OWNER' },
    { env: { BOOTSTRAP_OWNER: `${OWNER_B},nope` }, setting: 'BOOTSTRAP_OWNER' },
    { env: { TRUST_PROXY: 'garbage' }, setting: 'TRUST_PROXY' },
    { env: { TRUST_PROXY: '10.0.0.0/33' }, setting: 'TRUST_PROXY' },
    { env: { TRUST_PROXY: '127.0.0.1,yes' }, setting: 'TRUST_PROXY' },
    { env: { JWT_CLOCK_SKEW: '-1' }, setting: 'JWT_CLOCK_SKEW' },
    { env: { JWT_CLOCK_SKEW: '301' }, setting: 'JWT_CLOCK_SKEW' },
    { env: { IDENTITY_ADMIN_URL: 'ftp://auth', IDENTITY_SERVICE_KEY: 'k' }, setting: 'IDENTITY_ADMIN_URL' },
    { env: { IDENTITY_ADMIN_URL: 'https://auth.example.test' }, setting: 'IDENTITY_SERVICE_KEY' },
    { env: { IDENTITY_TIMEOUT_MS: '50' }, setting: 'IDENTITY_TIMEOUT_MS' },
    { env: { RUNTIME_URL: 'runtime:8443', RUNTIME_API_KEY: 'k' }, setting: 'RUNTIME_URL' },
    { env: { RUNTIME_URL: 'https://runtime.internal' }, setting: 'RUNTIME_API_KEY' },
    { env: { RUNTIME_TIMEOUT_MS: 'soon' }, setting: 'RUNTIME_TIMEOUT_MS' },
    { env: { RUNTIME_CONNECT_TIMEOUT_MS: '0' }, setting: 'RUNTIME_CONNECT_TIMEOUT_MS' },
    { env: { STRIPE_SECRET_KEY: 'sk_test_123' }, setting: 'STRIPE_WEBHOOK_SECRET' },
    { env: { STRIPE_API_BASE: 'stripe.local' }, setting: 'STRIPE_API_BASE' },
    { env: { PUBLIC_BASE_URL: 'api.example.test' }, setting: 'PUBLIC_BASE_URL' },
    { env: { CHECKOUT_ALLOWED_ORIGINS: 'https://play.example.test/path' }, setting: 'CHECKOUT_ALLOWED_ORIGINS' },
    { env: { CHECKOUT_ALLOWED_ORIGINS: 'ftp://files.example.test' }, setting: 'CHECKOUT_ALLOWED_ORIGINS' },
    { env: { CORS_ORIGINS: '*' }, setting: 'CORS_ORIGINS' },
    { env: { CORS_ORIGINS: 'https://admin.example.test/console' }, setting: 'CORS_ORIGINS' },
    { env: { SMTP_URL: 'http://mail.example.test' }, setting: 'SMTP_URL' },
    { env: { MAIL_FROM: 'Platform <not an address>' }, setting: 'MAIL_FROM' },
    { env: { MAIL_FROM: 'nobody' }, setting: 'MAIL_FROM' },
    { env: { MAIL_RATE_PER_SECOND: '0' }, setting: 'MAIL_RATE_PER_SECOND' },
    { env: { MAIL_RATE_PER_SECOND: '1001' }, setting: 'MAIL_RATE_PER_SECOND' },
    { env: { MAIL_UNSUBSCRIBE_MAILTO: 'mailto:x@example.test' }, setting: 'MAIL_UNSUBSCRIBE_MAILTO' },
    { env: { EMAIL_TOKEN_SECRET: 'short' }, setting: 'EMAIL_TOKEN_SECRET' },
    { env: { STORAGE_S3_BUCKET: 'Not_A_Bucket' }, setting: 'STORAGE_S3_BUCKET' },
    { env: { STORAGE_S3_BUCKET: 'ab' }, setting: 'STORAGE_S3_BUCKET' },
    { env: { STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_REGION: 'EU West' }, setting: 'STORAGE_S3_REGION' },
    { env: { STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_ENDPOINT: 'minio:9000' }, setting: 'STORAGE_S3_ENDPOINT' },
    { env: { STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_ENDPOINT: 'ftp://minio' }, setting: 'STORAGE_S3_ENDPOINT' },
    { env: { STORAGE_S3_ENDPOINT: 'http://minio:9000' }, setting: 'STORAGE_S3_BUCKET' },
    { env: { STORAGE_S3_ACCESS_KEY_ID: 'AKIA', STORAGE_S3_SECRET_ACCESS_KEY: 's' }, setting: 'STORAGE_S3_BUCKET' },
    {
      env: { STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_ACCESS_KEY_ID: 'AKIA' },
      setting: 'STORAGE_S3_SECRET_ACCESS_KEY',
    },
    {
      env: { STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_SECRET_ACCESS_KEY: 's3-secret' },
      setting: 'STORAGE_S3_ACCESS_KEY_ID',
    },
    // The made-up dev secret is for the embedded database only.
    { env: { DATABASE_URL: 'postgres://db/platform' }, setting: 'JWT_SECRET' },
    { env: { REDIS_KEY_PREFIX: 'platform-api:eu' }, setting: 'REDIS_KEY_PREFIX' },
    { env: { REDIS_KEY_PREFIX: ':' }, setting: 'REDIS_KEY_PREFIX' },
    { env: { REDIS_KEY_PREFIX: 'eu west:' }, setting: 'REDIS_KEY_PREFIX' },
    { env: { REDIS_KEY_PREFIX: 'région:' }, setting: 'REDIS_KEY_PREFIX' },
    { env: { REDIS_KEY_PREFIX: `${'p'.repeat(100)}:` }, setting: 'REDIS_KEY_PREFIX' },
  ];

  it.each(malformed)('$setting refuses $env', ({ env, setting }) => {
    const message = refusalOf(env);
    expect(message.startsWith(`${setting}: `)).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('METRICS_PORT: unset is off, 1-65535 is a port of its own', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '1' }).metricsPort).toBe(1);
    expect(loadConfig({ METRICS_PORT: '65535' }).metricsPort).toBe(65535);
    expect(refusalOf({ METRICS_PORT: '0' })).toBe('METRICS_PORT: must be an integer from 1 to 65535, got 0');
    expect(refusalOf({ METRICS_PORT: '9464', PORT: '9464' })).toBe(
      'METRICS_PORT: must differ from PORT (9464): metrics have a listener of their own',
    );
    expect(refusalOf({ METRICS_HOST: 'a b' })).toBe('METRICS_HOST: "a b" is not a host name or address');
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT: unset is no tracing; an http(s) URL; OTEL_SERVICE_NAME defaults', () => {
    expect(loadConfig({}).otelEndpoint).toBeUndefined();
    expect(loadConfig({}).otelServiceName).toBe('platform-api');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318' }).otelEndpoint).toBe(
      'https://otel.example:4318',
    );
    expect(refusalOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel.example' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT: is not a valid URL',
    );
    expect(refusalOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://otel.example:4317' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT: must use http or https, got grpc',
    );
  });

  it("CONSOLE_DIR defaults to the package's console/dist; CONSOLE_GOTRUE_URL and its anon key come together", () => {
    expect(DEFAULT_CONSOLE_DIR).toBe(resolve(import.meta.dirname, '..', 'console', 'dist'));
    expect(loadConfig({ CONSOLE_DIR: 'built/console' }).consoleDir).toBe(resolve('built/console'));
    expect(refusalOf({ CONSOLE_GOTRUE_URL: 'https://auth.example.test' })).toBe(
      'CONSOLE_GOTRUE_ANON_KEY: must be set when CONSOLE_GOTRUE_URL is set',
    );
    expect(refusalOf({ CONSOLE_GOTRUE_ANON_KEY: 'anon-key' })).toBe(
      'CONSOLE_GOTRUE_URL: must be set when CONSOLE_GOTRUE_ANON_KEY is set',
    );
    expect(refusalOf({ CONSOLE_GOTRUE_URL: 'auth.example.test', CONSOLE_GOTRUE_ANON_KEY: 'k' })).toBe(
      'CONSOLE_GOTRUE_URL: is not a valid URL',
    );
  });

  it('CONSOLE_CREDIT_CONFIRM_ABOVE is a whole number of credits from 0 to 1000000', () => {
    expect(loadConfig({ CONSOLE_CREDIT_CONFIRM_ABOVE: '0' }).consoleCreditConfirmAbove).toBe(0);
    expect(refusalOf({ CONSOLE_CREDIT_CONFIRM_ABOVE: '2.5' })).toBe(
      'CONSOLE_CREDIT_CONFIRM_ABOVE: must be an integer from 0 to 1000000, got "2.5"',
    );
    expect(refusalOf({ CONSOLE_CREDIT_CONFIRM_ABOVE: '1000001' })).toBe(
      'CONSOLE_CREDIT_CONFIRM_ABOVE: must be an integer from 0 to 1000000, got 1000001',
    );
  });

  it('a malformed value never echoes a secret', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short-secret-value' })).toThrow(
      /^JWT_SECRET: must be at least 32 characters$/,
    );
    expect(() => loadConfig({ STORAGE_S3_BUCKET: 'avatars', STORAGE_S3_SECRET_ACCESS_KEY: 's3-secret-value' })).toThrow(
      /^STORAGE_S3_ACCESS_KEY_ID: must be set when STORAGE_S3_SECRET_ACCESS_KEY is set$/,
    );
  });

  it('REDIS_KEY_PREFIX defaults to the prefix every earlier release used, and takes the documented forms', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('platform-api:rl:');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'a:' }).redisKeyPrefix).toBe('a:');
    expect(loadConfig({ REDIS_KEY_PREFIX: `${'p'.repeat(99)}:` }).redisKeyPrefix).toBe(`${'p'.repeat(99)}:`);
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'platform-api:eu' })).toThrow(
      'REDIS_KEY_PREFIX: must be 2-100 letters, digits or ".-_:", from a letter or digit to a final ":" ' +
        '(like "platform-api:eu:rl:"), got "platform-api:eu"',
    );
  });

  it('STORAGE_DIR defaults under DATA_DIR and follows it', () => {
    expect(loadConfig({ DATA_DIR: 'var/pa' }).storageDir).toBe(resolve('var/pa/storage'));
    expect(loadConfig({ DATA_DIR: 'var/pa', STORAGE_DIR: '/srv/objects' }).storageDir).toBe('/srv/objects');
  });

  it('DATABASE_URL with JWT_SECRET or JWKS_URL is accepted', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/platform', JWT_SECRET: SECRET }).databaseUrl).toBe(
      'postgres://db/platform',
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://db/platform', JWKS_URL: 'http://id.local/jwks' }).jwksUrl).toBe(
      'http://id.local/jwks',
    );
  });

  it('DATABASE_SESSION_URL defaults to DATABASE_URL; DATABASE_POOLER=transaction takes a session URL of its own', () => {
    const direct = loadConfig({ DATABASE_URL: 'postgres://db/platform', JWT_SECRET: SECRET });
    expect([direct.databaseSessionUrl, direct.databasePooler]).toEqual(['postgres://db/platform', 'none']);
    const pooled = loadConfig({
      DATABASE_URL: 'postgres://bouncer:6432/platform',
      DATABASE_SESSION_URL: 'postgres://db/platform',
      DATABASE_POOLER: 'transaction',
      JWT_SECRET: SECRET,
    });
    expect([pooled.databaseUrl, pooled.databaseSessionUrl, pooled.databasePooler]).toEqual([
      'postgres://bouncer:6432/platform',
      'postgres://db/platform',
      'transaction',
    ]);
  });

  describe('NODE_ENV=production never runs the embedded development mode', () => {
    const refusals: Array<{ env: Record<string, string>; message: string }> = [
      {
        env: { NODE_ENV: 'production' },
        message:
          'DATABASE_URL: must be set when NODE_ENV=production ' +
          '(the embedded database and its development owner token are for development only)',
      },
      {
        env: { NODE_ENV: 'production', JWT_SECRET: SECRET },
        message:
          'DATABASE_URL: must be set when NODE_ENV=production ' +
          '(the embedded database and its development owner token are for development only)',
      },
      {
        env: { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/platform' },
        message:
          'JWT_SECRET: set JWT_SECRET or JWKS_URL when NODE_ENV=production ' +
          '(the made-up dev secret is for development only)',
      },
    ];
    it.each(refusals)('refuses $env with one line naming the setting', ({ env, message }) => {
      expect(refusalOf(env)).toBe(message);
    });

    it('starts with DATABASE_URL and JWT_SECRET or JWKS_URL', () => {
      const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/platform' };
      expect(loadConfig({ ...production, JWT_SECRET: SECRET }).production).toBe(true);
      expect(loadConfig({ ...production, JWKS_URL: 'https://id.example.test/jwks' }).production).toBe(true);
    });

    it('listens on every interface by default in production, on loopback only otherwise', () => {
      const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/platform', JWT_SECRET: SECRET };
      expect(loadConfig(production).host).toBe('0.0.0.0');
      expect(loadConfig({ ...production, HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
      expect(loadConfig({ DATABASE_URL: 'postgres://db/platform', JWT_SECRET: SECRET }).host).toBe('127.0.0.1');
      expect(loadConfig({ NODE_ENV: 'development' }).host).toBe('127.0.0.1');
      expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    });
  });

  const trustForms: Array<{ value: string; expected: Config['trustProxy'] }> = [
    { value: 'true', expected: true },
    { value: 'false', expected: false },
    { value: '2', expected: 2 },
    { value: '0', expected: 0 },
    { value: '10.0.0.0/8,127.0.0.1', expected: ['10.0.0.0/8', '127.0.0.1'] },
    { value: ' 192.168.1.1 , ::1 , fd00::/8 ', expected: ['192.168.1.1', '::1', 'fd00::/8'] },
  ];

  it.each(trustForms)('TRUST_PROXY=$value', ({ value, expected }) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toStrictEqual(expected);
  });
});

describe('configuredEmailTokenSecret', () => {
  it('is EMAIL_TOKEN_SECRET when set, else a stable key derived from JWT_SECRET that is not the JWT secret, else none', () => {
    expect(configuredEmailTokenSecret({ emailTokenSecret: 'e'.repeat(40), jwtSecret: SECRET })).toBe('e'.repeat(40));
    const derived = configuredEmailTokenSecret({ emailTokenSecret: undefined, jwtSecret: SECRET });
    expect(derived).toBe(configuredEmailTokenSecret({ emailTokenSecret: undefined, jwtSecret: SECRET }));
    expect(derived).not.toContain(SECRET);
    expect(derived!.length).toBeGreaterThanOrEqual(32);
    expect(derived).not.toBe(configuredEmailTokenSecret({ emailTokenSecret: undefined, jwtSecret: 'y'.repeat(40) }));
    expect(configuredEmailTokenSecret({ emailTokenSecret: undefined, jwtSecret: undefined })).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  const env = {
    DATABASE_URL: 'postgres://app:p%40ss-w0rd!@db.internal:5432/platform',
    REDIS_URL: 'rediss://:redis-pass-1@cache.internal:6380',
    SMTP_URL: 'smtps://mailer:smtp-pass-2@smtp.example.test:465',
    JWT_SECRET: SECRET,
    STRIPE_SECRET_KEY: 'sk_live_0123456789',
    RUNTIME_API_KEY: 'runtime-key-0123',
  };

  it('hides every configured credential a start message could quote: secrets, URLs, passwords alone', () => {
    const quoted = [
      'connect to postgres://app:p%40ss-w0rd!@db.internal:5432/platform failed',
      'password "p@ss-w0rd!" rejected, encoded p%40ss-w0rd!',
      `redis rediss://:redis-pass-1@cache.internal:6380, smtp smtp-pass-2, jwt ${SECRET}`,
      'sk_live_0123456789, runtime-key-0123',
    ].join('; ');
    expect(redactSecrets(quoted, env)).toBe(
      'connect to *** failed; password "***" rejected, encoded ***; redis ***, smtp ***, jwt ***; ***, ***',
    );
  });

  it('leaves what is not a credential: a URL without a password, host names, users', () => {
    const plain = { DATABASE_URL: 'postgres://app@db.internal:5432/platform', REDIS_URL: 'redis://cache.internal' };
    const text = 'cannot use the database at db.internal:5432/platform (user app); redis://cache.internal';
    expect(redactSecrets(text, plain)).toBe(text);
  });
});

describe('TRUST_PROXY reaches the recorded client address', () => {
  // The audit row's ip is request.ip: the forwarded address only when the proxy is trusted.
  const cases: Array<{ name: string; trustProxy: Config['trustProxy']; forwardedFor: string; expected: string }> = [
    { name: 'off: the socket address', trustProxy: false, forwardedFor: '198.51.100.9', expected: '127.0.0.1' },
    {
      name: 'a trusted proxy address',
      trustProxy: ['127.0.0.1'],
      forwardedFor: '198.51.100.9',
      expected: '198.51.100.9',
    },
    {
      name: 'an untrusted proxy address',
      trustProxy: ['10.0.0.0/8'],
      forwardedFor: '198.51.100.9',
      expected: '127.0.0.1',
    },
    {
      name: 'one hop of two forwarded',
      trustProxy: 1,
      forwardedFor: '198.51.100.9, 203.0.113.5',
      expected: '203.0.113.5',
    },
    {
      name: 'two hops of two forwarded',
      trustProxy: 2,
      forwardedFor: '198.51.100.9, 203.0.113.5',
      expected: '198.51.100.9',
    },
  ];
  let base: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    base = await startTestApp();
  });
  afterAll(async () => {
    await base.close();
  });

  it.each(cases)('$name', async ({ trustProxy, forwardedFor, expected }) => {
    // Another instance on the same database, configured with this TRUST_PROXY.
    const t = await startTestApp({ config: { trustProxy }, database: base.kernel.database });
    try {
      const owner = await createUser(t.db, ['*']);
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': forwardedFor },
        payload: { key: `proxied-${owner.id.slice(0, 8)}`, name: 'Proxied' },
      });
      expect(response.statusCode).toBe(201);
      const row = await t.db
        .selectFrom('audit_log')
        .select(['ip', 'actor_id'])
        .where('target_id', '=', response.json().id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ ip: expected, actor_id: owner.id });
    } finally {
      await t.close();
    }
  });
});

describe('resolveDevSecret', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pa-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a 0600 secret once in DATA_DIR and reuses it', () => {
    const dataDir = join(dir, 'fresh', 'nested');
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = resolveDevSecret(config);
    const file = join(dataDir, 'jwt-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.jwtSecretSource).toBe('generated');
    expect(first.jwtSecret!.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.jwtSecret);
    expect(first).toStrictEqual({ ...config, jwtSecret: first.jwtSecret, jwtSecretSource: 'generated' });

    const stored = readFileSync(file, 'utf8');
    const second = resolveDevSecret(loadConfig({ DATA_DIR: dataDir }));
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(readFileSync(file, 'utf8')).toBe(stored);

    // Another DATA_DIR, another secret.
    const other = resolveDevSecret(loadConfig({ DATA_DIR: join(dir, 'other') }));
    expect(other.jwtSecret).not.toBe(first.jwtSecret);
  });

  const untouched: Array<{ name: string; env: Record<string, string> }> = [
    { name: 'JWT_SECRET is set', env: { JWT_SECRET: SECRET } },
    { name: 'JWKS_URL is set', env: { JWKS_URL: 'https://id.example.test/jwks' } },
    { name: 'DATABASE_URL is set', env: { DATABASE_URL: 'postgres://db/x', JWKS_URL: 'https://id.example.test/jwks' } },
  ];

  it.each(untouched)('leaves the config and the disk alone when $name', ({ env }) => {
    const dataDir = join(dir, `untouched-${Object.keys(env).join('-')}`);
    const config = loadConfig({ ...env, DATA_DIR: dataDir });
    expect(resolveDevSecret(config)).toBe(config);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('never makes a dev secret for a production config, however it was built', () => {
    const dataDir = join(dir, 'production');
    const config: Config = { ...loadConfig({ DATA_DIR: dataDir }), production: true };
    expect(resolveDevSecret(config)).toBe(config);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a stored secret that is too short, naming DATA_DIR', () => {
    const dataDir = join(dir, 'short');
    resolveDevSecret(loadConfig({ DATA_DIR: dataDir }));
    writeFileSync(join(dataDir, 'jwt-secret'), 'too-short');
    expect(() => resolveDevSecret(loadConfig({ DATA_DIR: dataDir }))).toThrow(ConfigError);
    expect(() => resolveDevSecret(loadConfig({ DATA_DIR: dataDir }))).toThrow(/^DATA_DIR: /);
  });
});

describe('CLI', () => {
  interface Run {
    code: number;
    stdout: string;
    stderr: string;
    startedAt: number;
    finishedAt: number;
  }
  let dir: string;
  const runs = new Map<string, Run>();

  /** `platform-api …` run by the CLI's dispatcher in this process (test/cli/command-line.ts). */
  async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
    const startedAt = Math.floor(Date.now() / 1000);
    const run = await cliInProcess(args, { DATA_DIR: join(dir, 'data'), ...env });
    return { ...run, startedAt, finishedAt: Math.ceil(Date.now() / 1000) };
  }

  const SUB = '6f1c1c57-3333-4000-8000-00000000000c';
  const commands: Record<string, [string[], Record<string, string>?]> = {
    token: [
      ['token', '--sub', SUB, '--claim', 'app_metadata.provider=github', '--ttl', '5m', '--email', 'cli@example.test'],
      { JWT_SECRET: SECRET },
    ],
    tokenDevSecret: [['token', '--sub', SUB]],
    tokenNoSub: [['token'], { JWT_SECRET: SECRET }],
    helpMain: [['--help']],
    helpServe: [['serve', '--help']],
    helpMigrate: [['migrate', '--help']],
    helpToken: [['token', '--help']],
    badPort: [['serve'], { PORT: 'abc' }],
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pa-cli-'));
    const results = await Promise.all(
      Object.entries(commands).map(async ([name, [args, env]]) => [name, await cli(args, env)] as const),
    );
    for (const [name, run] of results) runs.set(name, run);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (name: keyof typeof commands) => runs.get(name)!;

  it('token mints an HS256 JWT with aud, sub, nested claims and the ttl', async () => {
    const { code, stdout, stderr, startedAt, finishedAt } = run('token');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const token = stdout.trim();
    expect(stdout).toBe(`${token}\n`);
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      audience: 'authenticated',
    });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({
      aud: 'authenticated',
      sub: SUB,
      email: 'cli@example.test',
      role: 'authenticated',
      app_metadata: { provider: 'github' },
    });
    // Minted while the command ran: exp is now + 300 s for some "now" inside that run.
    expect(payload.exp!).toBeGreaterThanOrEqual(startedAt + 300);
    expect(payload.exp!).toBeLessThanOrEqual(finishedAt + 300);
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it('token without JWT_SECRET signs with the dev secret kept in DATA_DIR', async () => {
    const { code, stdout } = run('tokenDevSecret');
    expect(code).toBe(0);
    const secret = readFileSync(join(dir, 'data', 'jwt-secret'), 'utf8').trim();
    const { payload } = await jwtVerify(stdout.trim(), new TextEncoder().encode(secret), { audience: 'authenticated' });
    expect(payload.sub).toBe(SUB);
    expect(payload.exp! - payload.iat!).toBe(3_600);
  });

  it('token without --sub exits 1 with a message and the usage', () => {
    const { code, stdout, stderr } = run('tokenNoSub');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^--sub <uuid> is required\n\nUsage: platform-api token --sub <uuid>/);
  });

  it.each([
    ['helpMain', 'Usage: platform-api <command>'],
    ['helpServe', 'Usage: platform-api serve'],
    ['helpMigrate', 'Usage: platform-api migrate'],
    ['helpToken', 'Usage: platform-api token --sub <uuid>'],
  ] as const)('%s exits 0 with its usage', (name, usage) => {
    const { code, stdout, stderr } = run(name);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.startsWith(usage)).toBe(true);
  });

  it('a malformed setting stops serve with one line naming it', () => {
    const { code, stdout, stderr } = run('badPort');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe('Configuration error: PORT: must be an integer from 0 to 65535, got "abc"\n');
  });

  it('the minted token is not a dev convenience only: the real app accepts it', async () => {
    const t = await startTestApp({ config: { jwtSecret: SECRET } });
    try {
      const response = await t.request({ method: 'GET', url: '/v1/me', token: run('token').stdout.trim() });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: SUB, email: 'cli@example.test', provider: 'github' });
      expect(decodeJwt(run('token').stdout.trim()).sub).toBe(SUB);
    } finally {
      await t.close();
    }
  });
});
