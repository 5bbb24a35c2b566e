import { type Access, declaredTables, tableUses } from './scan.js';

/** A file of the tree: its path from the repository root (`src/modules/me/queries.ts`) and its text. */
export interface TreeFile {
  path: string;
  text: string;
}

/** A use of another area's table that stays, and why. */
export interface OwnerException {
  /** A file, or a folder ending in `/` for every file beneath it. */
  files: string;
  /** The tables it may use, or `*` for every table. */
  tables: readonly string[] | '*';
  /** `write` allows reads too. */
  access: Access;
  reason: string;
}

const KERNEL_FOLDERS = ['src/kernel/', 'src/db/'];

/** Who a source file writes as: `kernel`, the area folder under src/modules, or the top folder of src/. */
export function ownerOfFile(path: string): string {
  if (KERNEL_FOLDERS.some((folder) => path.startsWith(folder))) return 'kernel';
  const area = /^src\/modules\/(.+)\/[^/]+$/.exec(path);
  if (area?.[1] !== undefined) return area[1];
  return /^src\/([^/]+)\//.exec(path)?.[1] ?? path;
}

/** An area may use the tables its own folder declares and those of the family above it (email/tables.ts). */
function owns(fileOwner: string, tableOwner: string): boolean {
  return fileOwner === tableOwner || fileOwner.startsWith(`${tableOwner}/`);
}

function tableOwners(files: TreeFile[], problems: string[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const file of files) {
    if (!file.path.endsWith('/tables.ts')) continue;
    const inDb = file.path === 'src/db/tables.ts';
    for (const { table, owner } of declaredTables(file.path, file.text)) {
      const declaredBy = inDb ? owner : ownerOfFile(file.path);
      if (declaredBy === undefined) {
        problems.push(`${file.path}: table ${table} names no owner (add /** @owner <area or kernel> */ to it)`);
        continue;
      }
      const earlier = owners.get(table);
      if (earlier !== undefined) problems.push(`${file.path}: table ${table} is declared by ${earlier} already`);
      owners.set(table, declaredBy);
    }
  }
  return owners;
}

function covers(exception: OwnerException, path: string, table: string, access: Access): boolean {
  const file = exception.files.endsWith('/') ? path.startsWith(exception.files) : path === exception.files;
  const tableMatches = exception.tables === '*' || exception.tables.includes(table);
  return file && tableMatches && (exception.access === 'write' || access === 'read');
}

/**
 * The problems of the tree: writes (and FOR UPDATE locks) outside the table's owner, reads of another
 * area's table, exceptions that no longer match anything. Empty when the tree keeps the rule.
 */
export function checkTableOwners(files: TreeFile[], exceptions: readonly OwnerException[]): string[] {
  const problems: string[] = [];
  const owners = tableOwners(files, problems);
  const used = new Set<OwnerException>();
  for (const file of files) {
    if (!file.path.startsWith('src/') || !file.path.endsWith('.ts') || file.path.endsWith('/tables.ts')) continue;
    const fileOwner = ownerOfFile(file.path);
    for (const use of tableUses(file.path, file.text)) {
      const tableOwner = owners.get(use.table);
      if (tableOwner === undefined || owns(fileOwner, tableOwner)) continue;
      const exception = exceptions.find((candidate) => covers(candidate, file.path, use.table, use.access));
      if (exception !== undefined) {
        used.add(exception);
        continue;
      }
      const verb = use.access === 'write' ? 'writes' : 'reads';
      problems.push(
        `${file.path}:${use.line}: ${fileOwner} ${verb} ${use.table} (${use.how}), a table of ${tableOwner}: ` +
          `call ${tableOwner}'s service or queries through its index.ts`,
      );
    }
  }
  for (const exception of exceptions) {
    if (!used.has(exception)) {
      problems.push(`scripts/table-owners/exceptions.ts: no longer needed: ${exception.files} (${exception.access})`);
    }
  }
  return problems;
}
