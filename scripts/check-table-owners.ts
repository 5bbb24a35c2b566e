import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkTableOwners, type TreeFile } from './table-owners/check.js';
import { TABLE_OWNER_EXCEPTIONS } from './table-owners/exceptions.js';

/**
 * `npm run lint:deps` (after dependency-cruiser): a table is written only by the area whose tables.ts
 * declares it, and read elsewhere only through the owner's exports or a listed exception
 * (docs/architecture.md, "Areas own their tables"). Prints each problem and exits 1 if there is one.
 */
const root = join(import.meta.dirname, '..');

function sourceFiles(folder: string): TreeFile[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const absolute = join(entry.parentPath, entry.name);
      return { path: relative(root, absolute).split('\\').join('/'), text: readFileSync(absolute, 'utf8') };
    });
}

const problems = checkTableOwners(sourceFiles('src'), TABLE_OWNER_EXCEPTIONS);
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`\n${problems.length} table ownership problem(s): see docs/architecture.md, "Areas own their tables".`);
  process.exit(1);
}
console.log("table owners: every write is by its table's area");
