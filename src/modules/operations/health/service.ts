import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { pingDatabase } from './queries.js';

/** Probing the database on every health check would make /health as slow as a query. */
const PROBE_INTERVAL_MS = 1_000;
const PROBE_TIMEOUT_MS = 2_000;

export type DatabaseHealth = 'ok' | 'unreachable';

export class HealthService {
  #database: DatabaseHealth = 'ok';
  #probedAt = 0;
  #probe: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly now: () => number = Date.now,
  ) {}

  async status(): Promise<{ status: 'ok'; database: DatabaseHealth }> {
    if (this.now() - this.#probedAt >= PROBE_INTERVAL_MS) await this.#probeOnce();
    return { status: 'ok', database: this.#database };
  }

  #probeOnce(): Promise<void> {
    this.#probe ??= this.#runProbe().finally(() => {
      this.#probe = undefined;
      this.#probedAt = this.now();
    });
    return this.#probe;
  }

  async #runProbe(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database probe timed out')), PROBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([pingDatabase(this.db), timeout]);
      this.#database = 'ok';
    } catch {
      this.#database = 'unreachable';
    } finally {
      clearTimeout(timer);
    }
  }
}
