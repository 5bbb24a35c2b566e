import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import { configuredEmailTokenSecret, publicBaseUrlOf, type Config } from '../config.js';
import { createMailTransport } from '../adapters/mail/create.js';
import type { MailTransport } from '../adapters/mail/index.js';
import { createStorageAdapter } from '../adapters/storage/create.js';
import type { StorageAdapter } from '../adapters/storage/index.js';
import { createIdentityProvider } from '../adapters/identity/create.js';
import type { IdentityProvider } from '../adapters/identity/index.js';
import { createPaymentProvider } from '../adapters/payments/create.js';
import type { PaymentProvider } from '../adapters/payments/index.js';
import type { LocalPrice } from '../adapters/payments/local.js';
import { HttpRuntimeClient } from '../adapters/runtime/http.js';
import type { RuntimeClient } from '../adapters/runtime/index.js';
import { RuntimeSimulator, type RuntimeSimulatorOptions } from '../runtime-sim/simulator.js';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { ChangeBus } from './change-bus.js';
import { DrainState } from './drain.js';
import type { JobHandlers } from './areas/jobs.js';
import type { PermissionCatalog } from './permissions.js';
import { EventPublisher } from './events.js';
import { PanicMonitor } from './maintenance.js';
import { InFlightLimit } from './http/overload.js';
import { Metrics } from './metrics/metrics.js';
import { startTracing, type Tracing } from './tracing/tracing.js';
import type { PrincipalRows } from './principal.js';
import { UserChanges } from './auth/user-cache.js';
import { DevSignInCodes } from './auth/dev-sign-in.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore, type CounterStore } from './rate-limits.js';
import { tapMail, tapPayments, tapRuntime } from './areas/signal-taps.js';
import { SignalRecorder } from './areas/signals.js';
import { createTokenVerifier, type TokenVerifier } from './tokens.js';
import { createWrites, type Writes } from './write.js';

/** Incident monitoring as the kernel runs it: started once the runtime client exists, stopped first. */
export interface IncidentMonitoring {
  start(): void;
  stop(): Promise<void>;
}

/** What incident monitoring is made with: the kernel's parts it reads and acts through. */
export interface IncidentMonitoringParts {
  db: Kysely<Tables>;
  write: Writes;
  panic: PanicMonitor;
  signals: SignalRecorder;
  log: FastifyBaseLogger;
  /** The runtime client, once the kernel has made it (undefined before). */
  runtime: () => RuntimeClient | undefined;
  /** Probe, flush and evaluate this often; 0: never on a timer (INCIDENT_MONITOR off). */
  intervalMs: number;
}

/**
 * What every module relies on, built once per process and handed to route registrations.
 * `Incidents` is the incident monitor the areas lent (tests drive it through `kernel.incidents`).
 */
export interface Kernel<Incidents extends IncidentMonitoring = IncidentMonitoring> {
  config: Config;
  database: Database;
  db: Kysely<Tables>;
  bus: ChangeBus;
  events: EventPublisher;
  /** The one way a module writes: transaction, retry on conflict, audit, events, invalidations (write.ts). */
  write: Writes;
  panic: PanicMonitor;
  /** Notices of changes to a user's rows (migration 0032): what keeps per-user caches exact. */
  userChanges: UserChanges;
  /** Principals of recent requests (user, session, permissions), kept exact by `userChanges`. */
  principals: PrincipalRows;
  /** This instance's counters of the incident signals (responses, database, runtime, payments, mail). */
  signals: SignalRecorder;
  /** Sets and clears the maintenance level from the incident rules; ticks only with INCIDENT_MONITOR on. */
  incidents: Incidents;
  limiter: RateLimiter;
  /** Requests under way in this process, and the limit past which new ones are shed (overload.ts). */
  load: InFlightLimit;
  /** Set on SIGTERM: readiness turns 503 while in-flight work finishes (shutdown.ts). */
  drain: DrainState;
  /** This instance's Prometheus metrics (metrics/); undefined when METRICS_PORT is unset: nothing is measured. */
  metrics: Metrics | undefined;
  /** OpenTelemetry traces (tracing/); undefined when OTEL_EXPORTER_OTLP_ENDPOINT is unset: no span is made. */
  tracing: Tracing | undefined;
  tokens: TokenVerifier;
  /**
   * The development owner's one-time console sign-in codes: only in the embedded development mode
   * (a made-up secret, `jwtSecretSource: 'generated'`) with its owner given; undefined otherwise.
   */
  devSignIn: DevSignInCodes | undefined;
  log: FastifyBaseLogger;
  identity: IdentityProvider;
  /** The payment provider: Stripe when STRIPE_SECRET_KEY is set, else the local provider. */
  payments: PaymentProvider;
  /** Mail delivery: SMTP when SMTP_URL is set, else the outbox. */
  mail: MailTransport;
  /**
   * Object storage: S3 when STORAGE_S3_BUCKET is set, else local files under STORAGE_DIR with URLs signed by this
   * service.
   */
  storage: StorageAdapter;
  /** Signs unsubscribe links; available once `start()` has resolved (it may come from the database). */
  readonly emailTokenKey: string;
  /** The Runtime service client; available once `start()` has resolved (it may start the simulator). */
  readonly runtime: RuntimeClient;
  /** The in-process runtime simulator of the embedded default; undefined when RUNTIME_URL is set. */
  readonly runtimeSimulator: RuntimeSimulator | undefined;
  /** Every scheduled job's handler, by key: the areas' jobs. */
  readonly jobs: JobHandlers;
  /** Every permission key the areas declare, with what it allows. */
  readonly permissions: PermissionCatalog;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What the kernel takes from the areas, which it does not import: the composition
 * (src/modules/index.ts) makes it, and src/main.ts and the tests pass it to createKernel.
 */
export interface AreaServices<Incidents extends IncidentMonitoring = IncidentMonitoring> {
  /** Every scheduled job's handler, by key (jobsOf the areas). */
  jobs: JobHandlers;
  /** The permission catalog (permissionsOf the areas). */
  permissions: PermissionCatalog;
  /** How the local payment provider learns what a price charges, by provider price id (billing/catalog). */
  priceLookup: (db: Kysely<Tables>) => (providerPriceId: string) => Promise<LocalPrice | null>;
  /** Makes this instance's incident monitor (incidents). */
  incidents: (parts: IncidentMonitoringParts) => Incidents;
}

export interface KernelOptions {
  /** Overrides the counter store chosen from config (tests inject a clocked store). */
  counterStore?: CounterStore;
  /** Replaces the identity provider chosen from config. */
  identity?: IdentityProvider;
  /** Where the local payment provider keeps its state across restarts (`serve` puts it in DATA_DIR). */
  localPaymentsStateFile?: string;
  /** Tunes the in-process runtime simulator (tests shorten image pulls, seed nodes). */
  runtimeSimulator?: Partial<RuntimeSimulatorOptions>;
  /** How long ended spans wait for their batch's export (tests shorten it). */
  traceExportDelayMs?: number;
  /** The embedded development mode's owner (`serve` keeps it in DATA_DIR): console sign-in codes sign it in. */
  devOwner?: string;
}

/** ioredis is loaded only with REDIS_URL (about 0.2 s of a start otherwise spent for nothing). */
async function counterStoreFor(config: Config, log: FastifyBaseLogger): Promise<CounterStore> {
  if (config.redisUrl === undefined) return new MemoryCounterStore();
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  // The store logs an outage once when it begins and once when it ends (never per attempt or request).
  return new RedisCounterStore(redis, { prefix: config.redisKeyPrefix, log });
}

/** A secret the service made for itself, the same for every instance: made by whichever asks first. */
async function storedServiceSecret(db: Kysely<Tables>, name: string): Promise<string> {
  await db
    .insertInto('service_secrets')
    .values({ name, secret: randomBytes(48).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('service_secrets')
    .select('secret')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.secret;
}

/**
 * Builds the kernel; nothing runs until `start()`. Async only to load the SDKs of configured
 * peers (S3, Stripe, SMTP, Redis) on demand: a start without them does not pay for them.
 */
export async function createKernel<Incidents extends IncidentMonitoring>(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
  areas: AreaServices<Incidents>,
  options: KernelOptions = {},
): Promise<Kernel<Incidents>> {
  const logError = (what: string) => (error: unknown) => log.error({ err: error }, what);
  // First, so the adapters made below find their spans on.
  const tracing =
    config.otelEndpoint === undefined ? undefined : startTracing(config, { exportDelayMs: options.traceExportDelayMs });
  const bus = new ChangeBus(database, logError('change handler failed'));
  const store = options.counterStore ?? (await counterStoreFor(config, log));
  // The embedded default runs the simulator and reaches it over loopback HTTP: one code path.
  const simulator =
    config.runtimeUrl === undefined
      ? new RuntimeSimulator({ apiKey: randomBytes(24).toString('base64url'), ...options.runtimeSimulator })
      : undefined;
  let http: HttpRuntimeClient | undefined;
  let runtime: RuntimeClient | undefined;
  const signals = new SignalRecorder();
  const events = new EventPublisher(database.db, bus, logError('event delivery failed'));
  const write = createWrites(database.db, bus, events);
  const panic = new PanicMonitor(database.db, bus, logError('panic state refresh failed'));
  const userChanges = new UserChanges(database);
  let emailTokenKey = configuredEmailTokenSecret(config);
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : new Metrics({ maintenance: () => panic.state, databasePools: () => database.poolUsage() }, log);
  const payments = await createPaymentProvider(config, log, {
    // The local provider charges the catalog's prices and serves its pages from this service.
    priceLookup: areas.priceLookup(database.db),
    publicBaseUrl: () => publicBaseUrlOf(config),
    ...(options.localPaymentsStateFile !== undefined ? { stateFile: options.localPaymentsStateFile } : {}),
  });
  const mail = await createMailTransport(config, log);
  const storage = await createStorageAdapter(config, log, {
    publicBaseUrl: () => publicBaseUrlOf(config),
    // Read lazily: the email token key may come from the database once the kernel has started.
    serviceKey: () => kernel.emailTokenKey,
  });
  const kernel: Kernel<Incidents> = {
    config,
    database,
    db: database.db,
    bus,
    events,
    write,
    panic,
    userChanges,
    principals: userChanges.cache('account'),
    signals,
    incidents: areas.incidents({
      db: database.db,
      write,
      panic,
      signals,
      log,
      runtime: () => runtime,
      intervalMs: config.incidentMonitor ? config.incidentEvaluateSeconds * 1_000 : 0,
    }),
    load: new InFlightLimit(config.maxRequestsInFlight),
    drain: new DrainState(),
    metrics,
    tracing,
    limiter: new RateLimiter(store, (error) =>
      log.warn({ err: error }, 'rate-limit store unavailable; request let through'),
    ),
    tokens: createTokenVerifier({
      jwtSecret: config.jwtSecret,
      jwksUrl: config.jwksUrl,
      clockSkewSeconds: config.jwtClockSkewSeconds,
      meter: metrics?.peerCalls('identity'),
    }),
    devSignIn:
      config.jwtSecretSource === 'generated' && options.devOwner !== undefined
        ? new DevSignInCodes(options.devOwner)
        : undefined,
    log,
    identity: options.identity ?? createIdentityProvider(config, log, metrics?.peerCalls('identity')),
    payments: tapPayments(payments, signals, metrics?.peerCalls('payments')),
    mail: tapMail(mail, signals),
    storage,
    get emailTokenKey(): string {
      if (emailTokenKey === undefined) throw new Error('the email token key is available once the kernel has started');
      return emailTokenKey;
    },
    get runtime(): RuntimeClient {
      if (runtime === undefined) throw new Error('the runtime client is available once the kernel has started');
      return runtime;
    },
    runtimeSimulator: simulator,
    jobs: areas.jobs,
    permissions: areas.permissions,
    async start() {
      await bus.start();
      await userChanges.start();
      await store.ready?.();
      await kernel.panic.start();
      emailTokenKey ??= await storedServiceSecret(database.db, 'email-tokens');
      const endpoint =
        simulator === undefined
          ? { baseUrl: config.runtimeUrl!, apiKey: config.runtimeApiKey! }
          : { baseUrl: await simulator.listen('127.0.0.1', 0), apiKey: simulator.apiKey };
      http = new HttpRuntimeClient({
        ...endpoint,
        connectTimeoutMs: config.runtimeConnectTimeoutMs,
        timeoutMs: config.runtimeTimeoutMs,
        log,
        meter: metrics?.peerCalls('runtime'),
      });
      runtime = tapRuntime(http, signals);
      kernel.incidents.start();
    },
    async stop() {
      await kernel.incidents.stop();
      http?.close();
      // The local payment provider writes its state file a moment after changes: write what is pending.
      (kernel.payments as { flush?: () => void }).flush?.();
      await kernel.mail.close();
      await kernel.storage.close();
      await simulator?.close();
      kernel.panic.stop();
      await userChanges.stop();
      await bus.stop();
      await store.close();
      // Last, so the spans of stopping are exported too.
      await tracing?.shutdown();
    },
  };
  return kernel;
}
