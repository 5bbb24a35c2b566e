import type { FastifyBaseLogger, FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { PlatformEvent } from '../../src/kernel/events.js';
import { composePlatform, type ComposeOptions } from '../../src/composition/compose.js';
import type { Platform } from '../../src/composition/platform.js';
import { writeRoleGrantFixture } from '../../src/modules/roles/index.js';
import { writeUserFixtures } from '../../src/modules/users/index.js';
import type { IncidentMonitor } from '../../src/modules/operations/incidents/monitor.js';
import { checkAuditPictures } from './audit-pictures.js';
import { checkAnswersAgainstContract } from './contract.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { signToken, TEST_JWT_SECRET } from './tokens.js';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: '/nonexistent',
    databaseUrl: undefined,
    databasePoolSize: 10,
    databaseSessionUrl: undefined,
    databasePooler: 'none',
    redisUrl: undefined,
    redisKeyPrefix: 'platform-api:rl:',
    jwtSecret: TEST_JWT_SECRET,
    jwtSecretSource: 'env',
    jwksUrl: undefined,
    jwtClockSkewSeconds: 30,
    bootstrapOwners: [],
    trustProxy: false,
    corsOrigins: [],
    logLevel: 'silent',
    logFormat: 'json',
    // Tests drive jobs through runDueJobs with their own clock; no timer touches their databases.
    scheduledJobs: false,
    production: false,
    identityAdminUrl: undefined,
    identityServiceKey: undefined,
    identityTimeoutMs: 2_000,
    runtimeUrl: undefined,
    runtimeApiKey: undefined,
    runtimeConnectTimeoutMs: 1_000,
    runtimeTimeoutMs: 2_000,
    stripeSecretKey: undefined,
    stripeWebhookSecret: undefined,
    stripeApiBase: undefined,
    publicBaseUrl: 'http://platform.test',
    checkoutAllowedOrigins: [],
    smtpUrl: undefined,
    mailFrom: 'Platform <no-reply@platform.test>',
    mailRatePerSecond: 1000,
    mailUnsubscribeMailto: undefined,
    emailTokenSecret: undefined,
    // The local store makes its directory on the first write only; storage tests pass a temp dir.
    storageDir: '/nonexistent/storage',
    storageS3Bucket: undefined,
    storageS3Region: 'us-east-1',
    storageS3Endpoint: undefined,
    storageS3AccessKeyId: undefined,
    storageS3SecretAccessKey: undefined,
    // Tests drive the incident monitor through evaluate(now); no timer changes their panic level.
    incidentMonitor: false,
    docsUi: true,
    incidentEvaluateSeconds: 5,
    maxRequestsInFlight: 1_000,
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
    // No console built there: the console's own tests write one to a temp dir.
    consoleDir: '/nonexistent/console',
    consoleGotrueUrl: undefined,
    consoleGotrueAnonKey: undefined,
    consoleCreditConfirmAbove: 500,
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  kernel: Platform<IncidentMonitor>;
  db: Platform['db'];
  /** Events delivered to this instance's subscribers, in order. */
  events: PlatformEvent[];
  request(options: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions extends BuildAppOptions, ComposeOptions {
  config?: Partial<Config>;
  /** Run on this database instead of a fresh one (a second instance of the same service). */
  database?: Database;
  /** Start the fresh database from this embedded dump (`TestDatabase.dump`) instead of the migrated one. */
  fromDump?: string;
  /** The kernel's logger (tests that assert on log lines pass a capturing one). */
  log?: FastifyBaseLogger;
}

/** A real app (kernel, modules, hooks) on a database of its own, driven with `inject`. */
export async function startTestApp(
  options: TestAppOptions = {},
): Promise<TestApp & { testDatabase: TestDatabase | null }> {
  const testDatabase = options.database ? null : await createTestDatabase(options.fromDump);
  const database = options.database ?? testDatabase!.database;
  const config = testConfig(options.config);
  const kernel = await composePlatform(config, database, options.log ?? pino({ level: 'silent' }), options);
  await kernel.start();
  // Every answer of every suite is also checked against zod's own parse (src/lib/response-serializer.ts).
  const app = await buildApp(kernel, { verifyResponseShaping: true, ...options });
  // …and against the OpenAPI document: a status it does not declare, or a body its schema refuses,
  // fails the request's test (contract.ts).
  // The document depends on the settings and on what the app was given (a dev owner adds the
  // console's sign-in codes); probe routes added by a test carry no operation id and go unchecked.
  const documentKey = JSON.stringify({ config, devOwner: options.devOwner ?? null });
  const violations = checkAnswersAgainstContract(app, documentKey);
  await app.ready();
  const events: PlatformEvent[] = [];
  kernel.events.subscribe((event) => events.push(event));
  return {
    app,
    kernel,
    db: kernel.db,
    events,
    testDatabase,
    async request({ token, headers, ...rest }) {
      const response = await app.inject({
        ...rest,
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const violation = violations.get(String(response.headers['x-request-id']));
      if (violation !== undefined && process.env.CONTRACT_RECORD) {
        appendFileSync(
          process.env.CONTRACT_RECORD,
          `${JSON.stringify({ violation, body: response.body.slice(0, 300) })}\n`,
        );
        violations.delete(String(response.headers['x-request-id']));
      } else if (violation !== undefined) {
        violations.delete(String(response.headers['x-request-id']));
        throw new Error(`contract: ${violation}`);
      }
      return response;
    },
    async close() {
      // Answers got through `app.inject` directly are checked too.
      const unreported = process.env.CONTRACT_RECORD ? [] : [...violations.values()];
      violations.clear();
      // The audit rows of this file's own database are held to the pictures recorded before they
      // were derived (test/helpers/audit-pictures.ts); AUDIT_PICTURES_RECORD records them instead.
      const unknownPictures = testDatabase === null ? [] : await checkAuditPictures(kernel.db);
      await app.close();
      await kernel.stop();
      await testDatabase?.drop();
      if (unreported.length > 0) throw new Error(`contract:\n${unreported.join('\n')}`);
      if (unknownPictures.length > 0)
        throw new Error(`audit pictures unlike any the service wrote before:\n${unknownPictures.join('\n')}`);
    },
  };
}

export interface TestUser {
  id: string;
  token: string;
  email: string;
}

/**
 * A signed-in user holding exactly these permissions (through a role made for them).
 * With no permissions: a plain player.
 */
export async function createUser(
  db: Platform['db'],
  permissions: string[] = [],
  options: { email?: string; status?: 'active' | 'banned' | 'deleted' } = {},
): Promise<TestUser> {
  const id = randomUUID();
  const email = options.email ?? `user-${id.slice(0, 8)}@example.test`;
  await writeUserFixtures(db, [{ id, email, status: options.status ?? 'active' }]);
  if (permissions.length > 0)
    await writeRoleGrantFixture(db, {
      userId: id,
      key: `test-${id.slice(0, 8)}`,
      name: `Test role of ${email}`,
      permissions,
    });
  return { id, email, token: await signToken({ sub: id, email }) };
}

/** Waits until `check` passes (events arrive after commit, asynchronously). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 2_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
