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

interface TableOwner {
  owner: string;
  /** A view the owner publishes: any area may read it, only the owner writes it. */
  published: boolean;
}

function tableOwners(files: TreeFile[], problems: string[]): Map<string, TableOwner> {
  const owners = new Map<string, TableOwner>();
  for (const file of files) {
    if (!file.path.endsWith('/tables.ts')) continue;
    const inDb = file.path === 'src/db/tables.ts';
    for (const { table, owner, published } of declaredTables(file.path, file.text)) {
      const declaredBy = inDb ? owner : ownerOfFile(file.path);
      if (declaredBy === undefined) {
        problems.push(`${file.path}: table ${table} names no owner (add /** @owner <area or kernel> */ to it)`);
        continue;
      }
      const earlier = owners.get(table);
      if (earlier !== undefined) problems.push(`${file.path}: table ${table} is declared by ${earlier.owner} already`);
      owners.set(table, { owner: declaredBy, published });
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
 * area's table that is not a view it publishes, exceptions that no longer match anything. Empty when
 * the tree keeps the rule.
 */
export function checkTableOwners(files: TreeFile[], exceptions: readonly OwnerException[]): string[] {
  const problems: string[] = [];
  const owners = tableOwners(files, problems);
  /** The tables each exception let through (`*` for an exception of every table). */
  const used = new Map<OwnerException, Set<string>>();
  for (const file of files) {
    if (!file.path.startsWith('src/') || !file.path.endsWith('.ts') || file.path.endsWith('/tables.ts')) continue;
    const fileOwner = ownerOfFile(file.path);
    for (const use of tableUses(file.path, file.text)) {
      const declared = owners.get(use.table);
      if (declared === undefined || owns(fileOwner, declared.owner)) continue;
      if (declared.published && use.access === 'read') continue;
      const tableOwner = declared.owner;
      const exception = exceptions.find((candidate) => covers(candidate, file.path, use.table, use.access));
      if (exception !== undefined) {
        const tables = used.get(exception) ?? new Set<string>();
        tables.add(exception.tables === '*' ? '*' : use.table);
        used.set(exception, tables);
        continue;
      }
      const verb = use.access === 'write' ? 'writes' : 'reads';
      const instead =
        use.access === 'write'
          ? `call ${tableOwner}'s service or queries through its index.ts`
          : `call ${tableOwner}'s queries through its index.ts or read a view it publishes`;
      problems.push(
        `${file.path}:${use.line}: ${fileOwner} ${verb} ${use.table} (${use.how}), a table of ${tableOwner}: ${instead}`,
      );
    }
  }
  for (const exception of exceptions) {
    const tables = used.get(exception);
    if (tables === undefined) {
      problems.push(`scripts/table-owners/exceptions.ts: no longer needed: ${exception.files} (${exception.access})`);
      continue;
    }
    const unused = exception.tables === '*' ? [] : exception.tables.filter((table) => !tables.has(table));
    if (unused.length > 0) {
      problems.push(
        `scripts/table-owners/exceptions.ts: ${exception.files} (${exception.access}) no longer needs ${unused.join(', ')}`,
      );
    }
  }
  return problems;
}
