import { join } from 'node:path';
import { runToCompletion } from './child-process.js';
import type { BenchDatabase } from './database.js';
import type { SeedSizes } from './options.js';
import type { StartupOutcome } from './report.js';
import { seed } from './seed/seed.js';
import { productionEnv, startService, type RunningService, type ServiceSettings } from './service-process.js';

/** Issue 31's start-up targets: process start to the first 200 on /health. */
const STARTUP_TARGET_MS = { postgres: 1_000, embeddedExisting: 1_500, embeddedFirst: 5_000 };

export interface PreparedService {
  service: RunningService;
  startups: StartupOutcome[];
  /** Peak RSS of service processes that already ended (the embedded first start). */
  earlierPeakRssMb: number;
  seedSeconds: number;
}

/**
 * Brings the service up on a seeded database, timing the starts the issue asks about.
 * PostgreSQL: migrate with the CLI, seed, then the timed start (existing data).
 * Embedded: a timed first start on the empty DATA_DIR (it migrates), stop it, seed the files
 * with PGlite while no service holds them, then the timed start on existing data.
 */
export async function prepareService(
  database: BenchDatabase,
  settings: ServiceSettings,
  sizes: SeedSizes,
  log: (line: string) => void,
): Promise<PreparedService> {
  const startups: StartupOutcome[] = [];
  let earlierPeakRssMb = 0;
  if (database.kind === 'postgres') {
    log('migrating (node dist/main.js migrate)…');
    await runToCompletion(
      'migrate',
      process.execPath,
      [join(import.meta.dirname, '..', 'dist', 'main.js'), 'migrate'],
      productionEnv(settings, 0),
    );
  } else {
    log('first start on an empty DATA_DIR…');
    const first = await startService(settings);
    startups.push({
      name: 'startup: embedded, first start (empty DATA_DIR)',
      ms: first.startupMs,
      targetMs: STARTUP_TARGET_MS.embeddedFirst,
    });
    earlierPeakRssMb = (await first.stop()).peakRssMb;
  }

  log('seeding…');
  const seedStarted = performance.now();
  await seed(database, sizes, log);
  const seedSeconds = (performance.now() - seedStarted) / 1_000;

  log('starting the service on the seeded database…');
  const service = await startService(settings);
  startups.push(
    database.kind === 'postgres'
      ? { name: 'startup: PostgreSQL (existing data)', ms: service.startupMs, targetMs: STARTUP_TARGET_MS.postgres }
      : {
          name: 'startup: embedded, existing data',
          ms: service.startupMs,
          targetMs: STARTUP_TARGET_MS.embeddedExisting,
        },
  );
  return { service, startups, earlierPeakRssMb, seedSeconds };
}
