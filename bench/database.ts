import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { isAlive, onCleanup } from './cleanup.js';

/** Runs seed SQL: PostgreSQL through node-postgres, the embedded database through PGlite itself. */
export interface SeedConnection {
  /** One or more statements without parameters (simple protocol on both). */
  exec(sql: string): Promise<void>;
  query<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export interface BenchDatabase {
  kind: 'postgres' | 'embedded';
  /** The service's DATA_DIR: the embedded database files, and the local payment provider's state. */
  dataDir: string;
  /** The service's DATABASE_URL; unset on the embedded database. */
  serviceUrl: string | undefined;
  /** Opens the database for seeding. The embedded one must not be open in the service at the time. */
  connect(): Promise<SeedConnection>;
}

// Names carry the pid of the run that made them, so a later run can remove what a killed one left
// (a SIGKILL runs no clean-up; tsx sends one when the process does not answer a signal within 60 ms).
const TEMP_PREFIX = 'platform-bench-';
const STALE_DIR = new RegExp(`^${TEMP_PREFIX}(\\d+)-`);
const STALE_DATABASE = /^platform_bench_\d{14}_(\d+)$/;

function removeStaleDataDirs(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = STALE_DIR.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function tempDataDir(): string {
  removeStaleDataDirs();
  const dir = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  onCleanup(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A fresh database on the server `serverUrl` names (its own database is used only to create and
 * drop ours), dropped when the run ends. WITH (FORCE) ends connections a crashed service left.
 */
export async function createPostgresDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `platform_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'platform\\_bench\\_%'`,
    );
    for (const { datname } of rows) {
      const pid = STALE_DATABASE.exec(datname)?.[1];
      if (pid !== undefined && !isAlive(Number(pid)))
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  } finally {
    await admin.end();
  }
  onCleanup(`drop database ${name}`, async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const serviceUrl = url.toString();
  return {
    kind: 'postgres',
    dataDir: tempDataDir(),
    serviceUrl,
    async connect() {
      const client = new pg.Client({ connectionString: serviceUrl });
      await client.connect();
      return {
        exec: async (sql) => {
          await client.query(sql);
        },
        query: async <T>(sql: string) => (await client.query(sql)).rows as T[],
        close: () => client.end(),
      };
    },
  };
}

/** The embedded database in a fresh temp DATA_DIR, removed when the run ends. */
export function createEmbeddedDatabase(): BenchDatabase {
  const dataDir = tempDataDir();
  return {
    kind: 'embedded',
    dataDir,
    serviceUrl: undefined,
    async connect() {
      // The same files the service opens (src/db/database.ts: DATA_DIR/pglite).
      const pglite = await PGlite.create(join(dataDir, 'pglite'));
      return {
        exec: async (sql) => {
          await pglite.exec(sql);
        },
        query: async <T>(sql: string) => (await pglite.query<T>(sql)).rows,
        close: () => pglite.close(),
      };
    },
  };
}
