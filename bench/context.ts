import { createEmbeddedDatabase, createPostgresDatabase, type BenchDatabase } from './database.js';
import type { SeedSizes } from './options.js';
import type { BenchContext } from './scenarios.js';
import { ADMIN_USER, OPS_USER, benchUser, playerRange } from './seed/fixtures.js';
import { mintToken } from './tokens.js';

/** The tokens and names the scenarios need (shared by `npm run bench` and `npm run soak`). */
export async function makeContext(baseUrl: string, sizes: SeedSizes, jwtSecret: string): Promise<BenchContext> {
  const players = playerRange(sizes);
  const playerTokens = await Promise.all(
    Array.from({ length: players.count }, (_, i) => mintToken(jwtSecret, benchUser(players.first + i))),
  );
  return {
    baseUrl,
    sizes,
    adminToken: await mintToken(jwtSecret, benchUser(ADMIN_USER)),
    opsToken: await mintToken(jwtSecret, benchUser(OPS_USER)),
    playerTokens,
  };
}

/** BENCH_DATABASE_URL set: a fresh database on that server; unset: the embedded one in a temp DATA_DIR. */
export async function openDatabase(databaseUrl: string | undefined): Promise<BenchDatabase> {
  return databaseUrl === undefined ? createEmbeddedDatabase() : createPostgresDatabase(databaseUrl);
}
