import { PGlite } from '@electric-sql/pglite';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, pgliteParsers, wrapPGlite, type Database } from '../../src/db/database.js';
import { migrate, MigrationError, readMigrations } from '../../src/db/migrate.js';
import { adminUrl, databaseUrlFor } from '../helpers/postgres-urls.js';

const MIGRATIONS_DIR = join(import.meta.dirname, '../../src/db/migrations');
const testUrl = process.env.TEST_DATABASE_URL;

/** An empty database of this test's own (never the migrated template), and a way to open more handles on it. */
interface EmptyDatabase {
  database: Database;
  openAnother(): Database;
  drop(): Promise<void>;
}

let counter = 0;

async function createEmptyDatabase(): Promise<EmptyDatabase> {
  if (testUrl) {
    const name = `pa_migrate_${process.pid}_${Date.now()}_${++counter}`;
    const admin = new pg.Client({ connectionString: adminUrl(testUrl) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const opened: Database[] = [];
    const open = () => {
      const database = openPostgres({ connectionString: databaseUrlFor(testUrl, name), poolMax: 3 });
      opened.push(database);
      return database;
    };
    const database = open();
    return {
      database,
      openAnother: open,
      async drop() {
        await Promise.all(opened.map((d) => d.close()));
        const dropper = new pg.Client({ connectionString: adminUrl(testUrl) });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  const database = wrapPGlite(await PGlite.create({ parsers: pgliteParsers }));
  return {
    database,
    // One embedded database belongs to one process: a second migrator shares its handle.
    openAnother: () => ({ ...database, close: async () => {} }),
    drop: () => database.close(),
  };
}

async function migrationRows(database: Database) {
  return database.db.selectFrom('schema_migrations').select(['name', 'checksum']).orderBy('name').execute();
}

async function tableExists(database: Database, table: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${`public.${table}`})::text AS found`.execute(
    database.db,
  );
  return rows[0]?.found !== null && rows[0]?.found !== undefined;
}

describe('migrate', () => {
  const files = readMigrations();
  let tempDir: string;

  beforeAll(() => {
    tempDir = mkdtempSync(join(tmpdir(), 'pa-migrations-'));
  });
  afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

  /** A copy of the shipped migrations that a test may edit or extend. */
  function migrationsCopy(name: string): string {
    const dir = join(tempDir, name);
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    return dir;
  }

  it('reads the shipped files in order with their checksums', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.map((f) => f.name)).toEqual([...files.map((f) => f.name)].sort());
    for (const file of files) {
      expect(file.name).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
      expect(file.sql).toBe(readFileSync(join(MIGRATIONS_DIR, file.name), 'utf8'));
      expect(file.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  // One fresh database walked through its life, step by step (an empty database is slow to make).
  describe('on one fresh database, in order', () => {
    let empty: EmptyDatabase;
    let database: Database;
    let seeded: Array<{ key: string; is_protected: boolean }> = [];
    beforeAll(async () => {
      empty = await createEmptyDatabase();
      database = empty.database;
    });
    afterAll(async () => {
      await empty.drop();
    });

    it('applies every migration once', async () => {
      expect(await tableExists(database, 'users')).toBe(false);
      expect(await migrate(database.db)).toEqual(files.map((f) => f.name));
      expect(await migrationRows(database)).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
      for (const table of [
        'users',
        'roles',
        'role_permissions',
        'user_roles',
        'audit_log',
        'event_outbox',
        'ops_panic_state',
      ]) {
        expect(await tableExists(database, table)).toBe(true);
      }
      // The seed rows of the first migration are there exactly once.
      seeded = await database.db.selectFrom('roles').select(['key', 'is_protected']).orderBy('key').execute();
      expect(seeded.filter((role) => role.key === 'owner')).toEqual([{ key: 'owner', is_protected: true }]);
    });

    it('running again applies nothing', async () => {
      expect(await migrate(database.db)).toEqual([]);
      expect(await migrate(database.db)).toEqual([]);
      expect(await migrationRows(database)).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
      expect(await database.db.selectFrom('roles').select(['key', 'is_protected']).orderBy('key').execute()).toEqual(
        seeded,
      );
      expect(await database.db.selectFrom('ops_panic_state').selectAll().execute()).toHaveLength(1);
    });

    it('refuses a migration whose file changed after it was applied', async () => {
      const before = await migrationRows(database);
      const dir = migrationsCopy('edited');
      const edited = files[0]!.name;
      writeFileSync(join(dir, edited), `${readFileSync(join(dir, edited), 'utf8')}\n-- an innocent-looking edit\n`);
      writeFileSync(join(dir, '9999_after_edit.sql'), 'CREATE TABLE never_created (id int);\n');
      const changed = readMigrations(dir);
      expect(changed[0]!.checksum).not.toBe(files[0]!.checksum);

      const attempt = migrate(database.db, changed);
      await expect(attempt).rejects.toBeInstanceOf(MigrationError);
      await expect(attempt).rejects.toThrow(
        `migration ${edited} changed after it was applied; add a new migration instead`,
      );
      // Nothing moved: the recorded checksums stand and no later file ran.
      expect(await migrationRows(database)).toEqual(before);
      expect(await tableExists(database, 'never_created')).toBe(false);
      // The lock was released: the untouched files still migrate (to nothing).
      expect(await migrate(database.db)).toEqual([]);
    });

    it('a failing file rolls back whole and is not recorded', async () => {
      const dir = migrationsCopy('failing');
      writeFileSync(join(dir, '9999_fails.sql'), 'CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n');
      await expect(migrate(database.db, readMigrations(dir))).rejects.toThrow(/no_such_table/);
      expect(await tableExists(database, 'half_done')).toBe(false);
      expect((await migrationRows(database)).map((r) => r.name)).toEqual(files.map((f) => f.name));
      expect(await migrate(database.db)).toEqual([]);
    });

    it('later files apply in order, each once; other files in the folder are ignored', async () => {
      const dir = migrationsCopy('later');
      writeFileSync(
        join(dir, '9998_probe.sql'),
        'CREATE TABLE migrate_probe (id int PRIMARY KEY);\nINSERT INTO migrate_probe VALUES (1);\n',
      );
      writeFileSync(join(dir, '9999_probe_more.sql'), 'INSERT INTO migrate_probe VALUES (2);\n');
      writeFileSync(join(dir, 'README.md'), 'not a migration');
      writeFileSync(join(dir, '10_bad_name.sql'), 'SELECT broken syntax here;');
      expect(await migrate(database.db, readMigrations(dir))).toEqual(['9998_probe.sql', '9999_probe_more.sql']);
      expect(await migrate(database.db, readMigrations(dir))).toEqual([]);
      const { rows } = await sql<{ id: number }>`SELECT id FROM migrate_probe ORDER BY id`.execute(database.db);
      expect(rows).toEqual([{ id: 1 }, { id: 2 }]);
      expect((await migrationRows(database)).map((r) => r.name)).toEqual([
        ...files.map((f) => f.name),
        '9998_probe.sql',
        '9999_probe_more.sql',
      ]);
    });
  });

  it('migrators starting together apply each file exactly once', async () => {
    const empty = await createEmptyDatabase();
    try {
      // Separate pools on PostgreSQL (as separate instances); the one shared handle on PGlite.
      const handles = [empty.database, empty.openAnother(), empty.openAnother()];
      const results = await Promise.all(handles.map((handle) => migrate(handle.db)));
      // Whoever took the lock first applied everything; the others found nothing left to do.
      expect(results.filter((applied) => applied.length > 0)).toEqual([files.map((f) => f.name)]);
      expect(results.flat()).toHaveLength(files.length);
      expect(await migrationRows(empty.database)).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
      expect(await empty.database.db.selectFrom('roles').select('key').where('key', '=', 'owner').execute()).toEqual([
        { key: 'owner' },
      ]);
      expect(await empty.database.db.selectFrom('ops_panic_state').selectAll().execute()).toHaveLength(1);
    } finally {
      await empty.drop();
    }
  });
});
