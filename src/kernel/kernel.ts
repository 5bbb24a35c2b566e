import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { ChangeBus } from './change-bus.js';
import { DrainState } from './drain.js';
import type { PermissionCatalog } from './permissions.js';
import { EventPublisher } from './events.js';
import { PanicMonitor } from './maintenance.js';
import { InFlightLimit } from './http/overload.js';
import type { Metrics } from './metrics/metrics.js';
import type { Tracing } from './tracing/tracing.js';
import type { PrincipalRows, PrincipalStore } from './principal.js';
import { UserChanges } from './auth/user-cache.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore, type CounterStore } from './rate-limits.js';
import { SignalRecorder } from './areas/signals.js';
import { createTokenVerifier, type TokenVerifier } from './tokens.js';
import { createWrites, type Writes } from './write.js';

/**
 * The request path and the write path: what every area uses and no area owns. The peers
 * (identity, payments, mail, storage, runtime) and the parts only some areas use are the
 * composition root's (src/composition/compose.ts), which builds on this.
 */
export interface Kernel {
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
  /** What a principal is read from and its sightings written to, on a cache miss (the users area's). */
  principalStore: PrincipalStore;
  /** This instance's counters of the incident signals (responses, database, runtime, payments, mail). */
  signals: SignalRecorder;
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
  log: FastifyBaseLogger;
  /** Every permission key the areas declare, with what it allows. */
  readonly permissions: PermissionCatalog;
}

/** The kernel with what starts and stops its listeners (change bus, user notices, counters, panic state). */
export interface RunningKernel extends Kernel {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface KernelOptions {
  /** Overrides the counter store chosen from config (tests inject a clocked store). */
  counterStore?: CounterStore;
  /** How long ended spans wait for their batch's export (tests shorten it). */
  traceExportDelayMs?: number;
}

/** ioredis is loaded only with REDIS_URL (about 0.2 s of a start otherwise spent for nothing). */
async function counterStoreFor(config: Config, log: FastifyBaseLogger): Promise<CounterStore> {
  if (config.redisUrl === undefined) return new MemoryCounterStore();
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  // The store logs an outage once when it begins and once when it ends (never per attempt or request).
  return new RedisCounterStore(redis, { prefix: config.redisKeyPrefix, log });
}

/**
 * Builds the kernel; nothing runs until `start()`. Tracing starts here, first, so what is built
 * after is traced. What it needs of the areas is handed in: their permission keys and the
 * principal's store (the users area's, over `database`).
 */
export async function createKernel(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
  permissions: PermissionCatalog,
  principalStore: PrincipalStore,
  options: KernelOptions = {},
): Promise<RunningKernel> {
  const logError = (what: string) => (error: unknown) => log.error({ err: error }, what);
  // The OpenTelemetry SDK is loaded only with an endpoint (about 0.1 s of CPU at a start otherwise).
  const tracing =
    config.otelEndpoint === undefined
      ? undefined
      : (await import('./tracing/tracing.js')).startTracing(config, { exportDelayMs: options.traceExportDelayMs });
  const bus = new ChangeBus(database, logError('change handler failed'));
  const store = options.counterStore ?? (await counterStoreFor(config, log));
  const events = new EventPublisher(database.db, bus, logError('event delivery failed'));
  const panic = new PanicMonitor(database.db, bus, logError('panic state refresh failed'));
  const userChanges = new UserChanges(database);
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : // prom-client is loaded only with METRICS_PORT.
        new (await import('./metrics/metrics.js')).Metrics(
          { maintenance: () => panic.state, databasePools: () => database.poolUsage() },
          log,
        );
  return {
    config,
    database,
    db: database.db,
    bus,
    events,
    write: createWrites(database.db, bus, events),
    panic,
    userChanges,
    principals: userChanges.cache('account'),
    principalStore,
    signals: new SignalRecorder(),
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
    log,
    permissions,
    async start() {
      await bus.start();
      await userChanges.start();
      await store.ready?.();
      await panic.start();
    },
    async stop() {
      panic.stop();
      await userChanges.stop();
      await bus.stop();
      await store.close();
      // Last, so the spans of stopping are exported too.
      await tracing?.shutdown();
    },
  };
}
