import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { createIdentityProvider } from '../adapters/identity/create.js';
import type { IdentityProvider } from '../adapters/identity/index.js';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { ChangeBus } from './change-bus.js';
import { EventPublisher } from './events.js';
import { PanicMonitor } from './maintenance.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore, type CounterStore } from './rate-limits.js';
import { createTokenVerifier, type TokenVerifier } from './tokens.js';

/** What every module relies on, built once per process and handed to route registrations. */
export interface Kernel {
  config: Config;
  database: Database;
  db: Kysely<Tables>;
  bus: ChangeBus;
  events: EventPublisher;
  panic: PanicMonitor;
  limiter: RateLimiter;
  tokens: TokenVerifier;
  log: FastifyBaseLogger;
  identity: IdentityProvider;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface KernelOptions {
  /** Overrides the counter store chosen from config (tests inject a clocked store). */
  counterStore?: CounterStore;
  /** Replaces the identity provider chosen from config. */
  identity?: IdentityProvider;
}

function counterStoreFor(config: Config, log: FastifyBaseLogger): CounterStore {
  if (config.redisUrl === undefined) return new MemoryCounterStore();
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', (error) => log.warn({ err: { message: error.message } }, 'redis connection error'));
  return new RedisCounterStore(redis);
}

export function createKernel(config: Config, database: Database, log: FastifyBaseLogger, options: KernelOptions = {}): Kernel {
  const logError = (what: string) => (error: unknown) => log.error({ err: error }, what);
  const bus = new ChangeBus(database, logError('change handler failed'));
  const store = options.counterStore ?? counterStoreFor(config, log);
  const kernel: Kernel = {
    config,
    database,
    db: database.db,
    bus,
    events: new EventPublisher(database.db, bus, logError('event delivery failed')),
    panic: new PanicMonitor(database.db, bus, logError('panic state refresh failed')),
    limiter: new RateLimiter(store, (error) => log.warn({ err: error }, 'rate-limit store unavailable; request let through')),
    tokens: createTokenVerifier({ jwtSecret: config.jwtSecret, jwksUrl: config.jwksUrl, clockSkewSeconds: config.jwtClockSkewSeconds }),
    log,
    identity: options.identity ?? createIdentityProvider(config, log),
    async start() {
      await bus.start();
      await kernel.panic.start();
    },
    async stop() {
      kernel.panic.stop();
      await bus.stop();
      await store.close();
    },
  };
  return kernel;
}
