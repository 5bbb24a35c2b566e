import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every staff operation (`/v1/admin/…`) is called by some screen, or listed in
 * console/README.md as API-only with its reason: an operation added to the API, or a screen that
 * stops calling one, fails here until the console or the list says so.
 */

const ROOT = join(import.meta.dirname, '..', '..', '..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function adminOperations(): string[] {
  const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
  };
  const operations: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/admin/')) continue;
    for (const method of METHODS) if (item[method] !== undefined) operations.push(`${method.toUpperCase()} ${path}`);
  }
  return operations.sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** `api.POST('/v1/admin/…'` calls of the console's sources (the typed client takes the path first). */
function consoleCalls(): Set<string> {
  const calls = new Set<string>();
  for (const file of sourceFiles(join(ROOT, 'console', 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bapi\.(GET|POST|PUT|PATCH|DELETE)\(\s*'([^']+)'/g)) {
      calls.add(`${match[1]} ${match[2]}`);
    }
  }
  return calls;
}

/** The API-only table of console/README.md: rows whose first cell is `` `METHOD /path` ``. */
function apiOnly(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'console', 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('API-only operations')) ?? '';
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) \/v1\/admin\/[^`]+)` \| (.+?) \|$/gm)) {
    rows.set(match[1] ?? '', match[2] ?? '');
  }
  return rows;
}

describe('the console reaches the staff operations of its areas', () => {
  const operations = adminOperations();
  const calls = consoleCalls();
  const listed = apiOnly();

  it('calls each one from a screen, or lists it as API-only with a reason', () => {
    const unreached = operations.filter((operation) => !calls.has(operation) && !listed.has(operation));
    expect(unreached).toEqual([]);
  });

  it('lists as API-only only operations that exist and no screen calls', () => {
    const stale = [...listed.keys()].filter((operation) => !operations.includes(operation) || calls.has(operation));
    expect(stale).toEqual([]);
    for (const [operation, reason] of listed)
      expect({ operation, reason: reason.trim().length > 10 }).toEqual({ operation, reason: true });
  });

  it('finds the calls it counts (the scan itself works)', () => {
    expect(calls.has('POST /v1/admin/roles')).toBe(true);
    expect(operations.length).toBeGreaterThan(160);
  });
});
