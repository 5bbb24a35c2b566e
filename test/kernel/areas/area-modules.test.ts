import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobsOf, permissionsOf, tagsOf, type AreaModule } from '../../../src/kernel/areas/module.js';
import { AREAS } from '../../../src/modules/index.js';

const MODULES_DIR = join(import.meta.dirname, '../../../src/modules');

/** Folders under src/modules holding code, with no folder of their own below: the areas. */
function areaFolders(dir = MODULES_DIR, prefix = ''): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory());
  if (folders.length > 0)
    return folders.flatMap((folder) => areaFolders(join(dir, folder.name), `${prefix + folder.name}/`));
  return entries.some((entry) => entry.name.endsWith('.ts')) ? [prefix.slice(0, -1)] : [];
}

/** An area's code, module.ts aside (it only lists what the rest does). */
function areaCode(area: AreaModule): string {
  const dir = join(MODULES_DIR, area.name);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && file !== 'module.ts')
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

const area = (name: string, parts: Partial<AreaModule> = {}): AreaModule => ({
  name,
  needs: [],
  routes: [],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
  ...parts,
});

describe('the areas of src/modules/index.ts', () => {
  it('list every area folder once', () => {
    expect(AREAS.map((listed) => listed.name).sort()).toEqual(areaFolders().sort());
  });

  it.each(AREAS.map((listed) => [listed.name, listed] as const))(
    '%s: every event it declares is named in its code',
    (_, listed) => {
      const code = areaCode(listed);
      for (const event of listed.events) expect(code, event).toContain(`'${event}'`);
    },
  );
});

describe('composing areas', () => {
  const noop = async () => ({});

  it('jobsOf gathers every area’s jobs and refuses a key two areas claim', () => {
    expect(Object.keys(jobsOf([area('a', { jobs: { one: noop } }), area('b', { jobs: { two: noop } })]))).toEqual([
      'one',
      'two',
    ]);
    expect(() => jobsOf([area('a', { jobs: { one: noop } }), area('b', { jobs: { one: noop } })])).toThrow(
      'job "one" of b is another area\'s already',
    );
  });

  it('permissionsOf gathers every area’s keys and refuses a key declared twice', () => {
    expect(permissionsOf([area('a', { permissions: { 'a.read': 'Read a.' } }), area('b')])).toEqual({
      'a.read': 'Read a.',
    });
    expect(() =>
      permissionsOf([
        area('a', { permissions: { 'a.read': 'Read a.' } }),
        area('b', { permissions: { 'a.read': 'A.' } }),
      ]),
    ).toThrow('permission "a.read" of b is declared twice');
  });

  it('tagsOf gathers every area’s tags in order and refuses a tag declared twice', () => {
    expect(tagsOf([area('a', { tags: { alpha: 'A.' } }), area('b', { tags: { beta: 'B.' } })])).toEqual([
      { name: 'alpha', description: 'A.' },
      { name: 'beta', description: 'B.' },
    ]);
    expect(() => tagsOf([area('a', { tags: { alpha: 'A.' } }), area('b', { tags: { alpha: 'A.' } })])).toThrow(
      'tag "alpha" of b is declared twice',
    );
  });
});
