import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { join } from 'node:path';
import { PGliteDialect } from './pglite-dialect.js';
import { PgListener } from './pg-listener.js';
import type { Tables } from './tables.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** A notification channel subscription; `onResync` runs when notifications may have been missed. */
export interface ListenHandlers {
  onMessage(payload: string): void;
  onResync(): void;
}

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Kysely<Tables>;
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const INT8_OID = 20;
const DATE_OID = 1082;

/** Counts and identities come back as numbers; dates stay 'YYYY-MM-DD' strings (no timezone shift). */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  connectionString: string;
  poolMax?: number;
}

export function openPostgres({ connectionString, poolMax = 10 }: PostgresOptions): Database {
  const pool = new pg.Pool({ connectionString, max: poolMax, types: pgTypes as pg.CustomTypesConfig });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const listeners: PgListener[] = [];
  return {
    kind: 'postgres',
    db,
    async listen(channel, handlers) {
      const listener = new PgListener(connectionString, channel, handlers);
      listeners.push(listener);
      await listener.start();
      return () => listener.stop();
    },
    async close() {
      await Promise.all(listeners.map((listener) => listener.stop()));
      await db.destroy();
    },
  };
}

/** Wraps an open PGlite instance; `ownsInstance` decides whether close() closes PGlite too. */
export function wrapPGlite(pglite: PGlite, ownsInstance = true): Database {
  const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
  return {
    kind: 'pglite',
    db,
    async listen(channel, handlers) {
      // In-process: nothing can be missed, so onResync never fires.
      return pglite.listen(channel, (payload) => handlers.onMessage(payload));
    },
    async close() {
      await db.destroy();
      if (ownsInstance) await pglite.close();
    },
  };
}

export const pgliteParsers = {
  [INT8_OID]: (value: string) => Number(value),
  [DATE_OID]: (value: string) => value,
};

export async function openPGlite(dataDir: string): Promise<Database> {
  const pglite = await PGlite.create(join(dataDir, 'pglite'), { parsers: pgliteParsers });
  return wrapPGlite(pglite);
}

export async function openDatabase(config: { databaseUrl: string | undefined; dataDir: string }): Promise<Database> {
  return config.databaseUrl !== undefined
    ? openPostgres({ connectionString: config.databaseUrl })
    : openPGlite(config.dataDir);
}
