import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FREE_TESTS } from './database-free.js';

const ROOT = join(import.meta.dirname, '..');

/** What reaches a test database: the app and database helpers, the composition, the database module. */
const DATABASE_HELPERS = [
  'test/helpers/app.ts',
  'test/helpers/database.ts',
  'src/composition/compose.ts',
  'src/db/database.ts',
  'src/db/migrate.ts',
];

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The files a test file imports, followed through test/ (src/ files are leaves: named, not read). */
function reached(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  if (!file.startsWith('test/')) return seen;
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec!.replace(/\.js$/, '.ts')));
    if (existsSync(join(ROOT, target))) reached(target, seen);
  }
  return seen;
}

describe('the database-free test files (the PostgreSQL run leaves them to the embedded one)', () => {
  const files = testFiles('test');
  const listed = files.filter((file) =>
    DATABASE_FREE_TESTS.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)),
  );

  it('each entry names files that exist', () => {
    for (const entry of DATABASE_FREE_TESTS) {
      expect(
        files.some((file) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)),
        entry,
      ).toBe(true);
    }
  });

  it('none reaches a database helper or the PostgreSQL run’s settings', () => {
    const offenders = listed.flatMap((file) => {
      const seen = [...reached(file)];
      const helpers = seen.filter((path) => DATABASE_HELPERS.includes(path));
      const settings = seen.some(
        (path) =>
          path.startsWith('test/') && /TEST_DATABASE_URL|pgTemplate/.test(readFileSync(join(ROOT, path), 'utf8')),
      );
      return helpers.length > 0 || settings
        ? [`${file}: ${[...helpers, settings ? 'TEST_DATABASE_URL' : ''].join(' ')}`]
        : [];
    });
    expect(offenders).toEqual([]);
  });
});
