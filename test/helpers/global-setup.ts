import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres, pgliteParsers, wrapPGlite } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { adminUrl, databaseUrlFor } from './postgres-urls.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL run: the migrated template database each test file clones. */
    pgTemplate: string | null;
    /**
     * A dump of a migrated embedded database: each test file's database on the PGlite run, and
     * on either run the DATA_DIR a CLI or process test starts from (test/helpers/data-dir.ts).
     */
    pgliteDump: string;
    /** A dump of an embedded database never migrated (an initialised cluster, no table of ours). */
    pgliteEmptyDump: string;
  }
}

/**
 * Migrates once per run: a template database on PostgreSQL (TEST_DATABASE_URL), and a PGlite
 * data-dir dump on either run. Test files then start from a copy in well under a second.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'pa-test-'));
  const dumps = await embeddedDumps(dir);
  project.provide('pgliteDump', dumps.migrated);
  project.provide('pgliteEmptyDump', dumps.empty);
  const removeDumps = () => rmSync(dir, { recursive: true, force: true });
  const testUrl = process.env.TEST_DATABASE_URL;
  if (testUrl) {
    const template = `pa_test_tmpl_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl(testUrl) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    const database = openPostgres({ connectionString: databaseUrlFor(testUrl, template), poolMax: 2 });
    await migrate(database.db);
    await database.close();
    project.provide('pgTemplate', template);
    return async () => {
      removeDumps();
      // Clones left by a crashed file are dropped too, so a run never leaves databases behind.
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `${template.replace('tmpl', 'f')}%`,
      ]);
      for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    };
  }
  project.provide('pgTemplate', null);
  return removeDumps;
}

/** One embedded cluster, dumped before and after migrating: the initdb (seconds) is paid once. */
async function embeddedDumps(dir: string): Promise<{ empty: string; migrated: string }> {
  const pglite = await PGlite.create({ parsers: pgliteParsers });
  const database = wrapPGlite(pglite);
  const dump = async (name: string) => {
    const file = join(dir, name);
    writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    return file;
  };
  const empty = await dump('empty.tar');
  await migrate(database.db);
  const migrated = await dump('migrated.tar');
  await database.close();
  return { empty, migrated };
}
