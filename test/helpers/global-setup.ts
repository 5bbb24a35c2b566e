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
    /** PGlite run: a dump of a migrated database each test file loads. */
    pgliteDump: string | null;
  }
}

/**
 * Migrates once per run: a template database on PostgreSQL (TEST_DATABASE_URL), or a PGlite
 * data-dir dump otherwise. Test files then start from a copy in well under a second.
 */
export default async function setup(project: TestProject) {
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
    project.provide('pgliteDump', null);
    return async () => {
      // Clones left by a crashed file are dropped too, so a run never leaves databases behind.
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `${template.replace('tmpl', 'f')}%`,
      ]);
      for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pa-test-'));
  const pglite = await PGlite.create({ parsers: pgliteParsers });
  const database = wrapPGlite(pglite);
  await migrate(database.db);
  const dump = await pglite.dumpDataDir('none');
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  project.provide('pgTemplate', null);
  project.provide('pgliteDump', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
