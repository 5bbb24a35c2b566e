import type { BenchDatabase } from '../database.js';
import type { SeedSizes } from '../options.js';
import { billingSteps } from './billing.js';
import { emailSteps } from './email.js';
import { writeLocalPaymentsState } from './local-payments.js';
import { peopleSteps } from './people.js';
import { siteAndStoreSteps } from './site-and-store.js';

/**
 * Writes the data set into a migrated, empty database: set-based statements only
 * (INSERT … SELECT over generate_series), then VACUUM ANALYZE: a database that grew to this size
 * has been vacuumed and analysed along the way, so its planner knows the sizes and its
 * index-only scans find the visibility map set. Prints each step's time.
 */
export async function seed(database: BenchDatabase, sizes: SeedSizes, log: (line: string) => void): Promise<void> {
  const connection = await database.connect();
  try {
    for (const step of [
      ...peopleSteps(sizes),
      ...siteAndStoreSteps(sizes),
      ...billingSteps(sizes),
      ...emailSteps(sizes),
    ]) {
      const started = performance.now();
      try {
        await connection.exec(`BEGIN;\n${step.sql}\nCOMMIT;`);
      } catch (error) {
        await connection.exec('ROLLBACK').catch(() => {});
        throw new Error(`seeding ${step.label} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      log(`  seeded ${step.label} (${Math.round(performance.now() - started)} ms)`);
    }
    await connection.exec('VACUUM ANALYZE');
  } finally {
    await connection.close();
  }
  writeLocalPaymentsState(database.dataDir, sizes);
}
