import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Lays the suite's embedded database into DATA_DIR, as `platform-api` keeps it (DATA_DIR/pglite):
 * migrated, what `migrate` makes without its minute of initdb and migrations; or empty, a
 * cluster never migrated. For tests of what runs on a DATA_DIR, not of how one is first made.
 */
export async function prepareDataDir(dataDir: string, state: 'migrated' | 'empty' = 'migrated'): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const dump = readFileSync(inject(state === 'migrated' ? 'pgliteDump' : 'pgliteEmptyDump'));
  await (await PGlite.create(join(dataDir, 'pglite'), { loadDataDir: new Blob([dump]) })).close();
}
