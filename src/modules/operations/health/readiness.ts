import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { appliedMigrationNames, readMigrations } from '../../../db/migrate.js';
import type { DrainState } from '../../../kernel/drain.js';
import { pingDatabase } from './queries.js';

/**
 * A flood of probes (every load balancer node, every few seconds, and anyone on the open route)
 * costs at most one round of checks per second: answers within it share the last result.
 */
export const READINESS_CACHE_MS = 1_000;
/** A dependency that has not answered by then is as good as down for a probe that must answer fast. */
const CHECK_TIMEOUT_MS = 2_000;

export type ReadinessPart = 'database' | 'migrations' | 'redis' | 'draining';

export interface ReadinessChecks {
  database: 'ok' | 'unreachable';
  /** `unknown` while the database does not answer. */
  migrations: 'ok' | 'pending' | 'unknown';
  redis: 'ok' | 'unreachable' | 'not_configured';
  draining: boolean;
}

export interface Readiness {
  ready: boolean;
  /** The parts that keep this instance out of rotation, in a fixed order. */
  failing: ReadinessPart[];
  checks: ReadinessChecks;
}

export interface ReadinessDependencies {
  db: Kysely<Tables>;
  drain: DrainState;
  /** The shared counter store (Redis) probe; undefined when none is configured. */
  probeRedis: () => Promise<void> | undefined;
  /** Every migration this build carries; read from the migrations directory when not given. */
  expectedMigrations?: () => readonly string[];
  now?: () => number;
}

type Probed = Omit<ReadinessChecks, 'draining'>;

/** Rejects when `work` has not settled within CHECK_TIMEOUT_MS. */
async function within<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, overdue]);
  } finally {
    clearTimeout(timer);
  }
}

let shippedMigrations: readonly string[] | undefined;
const migrationsOfThisBuild = () => (shippedMigrations ??= readMigrations().map((file) => file.name));

/**
 * Whether this instance should be sent traffic: the database answers, every migration this build
 * carries is applied, Redis answers when configured, and the instance is not draining. The
 * dependency checks are cached for READINESS_CACHE_MS (one round in flight at a time); draining
 * is read live, so it turns the answer at once.
 */
export class ReadinessService {
  readonly #now: () => number;
  readonly #expected: () => readonly string[];
  #probed: Probed | undefined;
  #probedAt = 0;
  #probing: Promise<Probed> | undefined;

  constructor(private readonly deps: ReadinessDependencies) {
    this.#now = deps.now ?? (() => Date.now());
    this.#expected = deps.expectedMigrations ?? migrationsOfThisBuild;
  }

  async check(): Promise<Readiness> {
    const probed = await this.#dependencies();
    const checks: ReadinessChecks = { ...probed, draining: this.deps.drain.draining };
    const failing: ReadinessPart[] = [];
    if (checks.database !== 'ok') failing.push('database');
    if (checks.migrations !== 'ok') failing.push('migrations');
    if (checks.redis === 'unreachable') failing.push('redis');
    if (checks.draining) failing.push('draining');
    return { ready: failing.length === 0, failing, checks };
  }

  #dependencies(): Promise<Probed> {
    if (this.#probed !== undefined && this.#now() - this.#probedAt < READINESS_CACHE_MS)
      return Promise.resolve(this.#probed);
    this.#probing ??= this.#probe().then((probed) => {
      this.#probed = probed;
      this.#probedAt = this.#now();
      this.#probing = undefined;
      return probed;
    });
    return this.#probing;
  }

  async #probe(): Promise<Probed> {
    const [database, redis] = await Promise.all([this.#database(), this.#redis()]);
    return { ...database, redis };
  }

  async #database(): Promise<Pick<Probed, 'database' | 'migrations'>> {
    try {
      await within(pingDatabase(this.deps.db));
    } catch {
      return { database: 'unreachable', migrations: 'unknown' };
    }
    try {
      const applied = await within(appliedMigrationNames(this.deps.db));
      const pending = this.#expected().some((name) => !applied.has(name));
      return { database: 'ok', migrations: pending ? 'pending' : 'ok' };
    } catch {
      // The database answered the ping: a failing read of the migrator's table (none yet) means
      // the schema is not this build's.
      return { database: 'ok', migrations: 'pending' };
    }
  }

  async #redis(): Promise<Probed['redis']> {
    const probe = this.deps.probeRedis();
    if (probe === undefined) return 'not_configured';
    try {
      await within(probe);
      return 'ok';
    } catch {
      return 'unreachable';
    }
  }
}
