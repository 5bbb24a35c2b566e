import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runToCompletion } from '../child-process.js';
import { FULL_SIZES, readOptions } from '../options.js';
import { seed } from '../seed/seed.js';
import { productionEnv } from '../service-process.js';

/**
 * Makes a PostgreSQL database with the bench's full data set and leaves it there, for looking at
 * query plans (EXPLAIN ANALYZE) outside a run. Needs a built dist/ (npm run build).
 *
 * BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/tools/seed-database.ts
 * platform_bench_explain
 *
 * Drop it when done: psql … -c 'DROP DATABASE platform_bench_explain'.
 */
async function main(): Promise<void> {
  const name = process.argv[2];
  const serverUrl = readOptions([], process.env).databaseUrl;
  if (name === undefined || !/^[a-z_][a-z0-9_]*$/.test(name) || serverUrl === undefined) {
    throw new Error('usage: BENCH_DATABASE_URL=postgres://… tsx bench/tools/seed-database.ts <new_database_name>');
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const env = productionEnv(
    { dataDir: '/nonexistent', databaseUrl: url.toString(), redisUrl: undefined, jwtSecret: 'x'.repeat(32) },
    0,
  );
  await runToCompletion(
    'migrate',
    process.execPath,
    [join(import.meta.dirname, '..', '..', 'dist', 'main.js'), 'migrate'],
    env,
  );
  const connect = async () => {
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    return {
      exec: async (sql: string) => {
        await client.query(sql);
      },
      query: async <T>(sql: string) => (await client.query(sql)).rows as T[],
      close: () => client.end(),
    };
  };
  // The local payment provider's file is not needed for EXPLAIN; it goes to a throwaway directory.
  const dataDir = join(tmpdir(), `${name}-data`);
  mkdirSync(dataDir, { recursive: true });
  await seed({ kind: 'postgres', dataDir, serviceUrl: url.toString(), connect }, FULL_SIZES, (line) =>
    process.stdout.write(`${line}\n`),
  );
  process.stdout.write(`seeded ${url.toString()}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
