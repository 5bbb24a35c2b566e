import { MemoryFS, PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pgliteParsers } from '../../src/db/database.js';

/** One regular file of a data-dir dump: its path under PGDATA and its bytes. */
interface DumpedFile {
  path: string;
  bytes: Uint8Array;
}

interface DataDirDump {
  directories: string[];
  files: DumpedFile[];
}

const TAR_BLOCK = 512;

/** The entries of an uncompressed tar (ustar, as `dumpDataDir('none')` writes it). */
function readDataDirDump(tar: Buffer): DataDirDump {
  const directories: string[] = [];
  const files: DumpedFile[] = [];
  const field = (at: number, length: number) => {
    const bytes = tar.subarray(at, at + length);
    const end = bytes.indexOf(0);
    return bytes.subarray(0, end < 0 ? length : end).toString('latin1');
  };
  for (let at = 0; at + TAR_BLOCK <= tar.length; ) {
    const name = field(at, 100);
    if (name === '') break; // the two zero blocks that end the archive
    const size = Number.parseInt(field(at + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(tar[at + 156]!);
    const prefix = field(at + 257, 6).startsWith('ustar') ? field(at + 345, 155) : '';
    const path = `/${prefix === '' ? '' : `${prefix}/`}${name}`.replace(/\/+/g, '/').replace(/\/$/, '');
    if (type === '5') directories.push(path);
    else if (type === '0' || type === '\0')
      // A plain Uint8Array, not a Buffer: Emscripten's file system copies what it is given with
      // `slice`, which on a Buffer is a view, and the copies would write through to the dump.
      files.push({ path, bytes: new Uint8Array(tar.buffer, tar.byteOffset + at + TAR_BLOCK, size) });
    else throw new Error(`data-dir dump: entry ${path} of tar type ${JSON.stringify(type)}, not a file or directory`);
    at += TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
  }
  return { directories, files };
}

/**
 * An in-memory file system that holds a dump's data dir before PostgreSQL starts: PGlite calls
 * `initialSyncFs` once its module is up and before it looks for a data dir, then finds PG_VERSION
 * and starts on it, as on a data dir it had kept. The same bytes PGlite's own `loadDataDir` would
 * write, without its generic untar, which asks the file system whether each parent directory of
 * each file exists: about half of a copy's CPU (0.6 of 1.4 s).
 */
class DumpedMemoryFS extends MemoryFS {
  constructor(private readonly dump: DataDirDump) {
    super();
  }

  override async initialSyncFs(): Promise<void> {
    const fs = this.pg!.Module.FS;
    const made = new Set<string>();
    const makeDirectory = (directory: string) => {
      let path = '';
      for (const part of directory.split('/').filter((each) => each !== '')) {
        path += `/${part}`;
        if (made.has(path)) continue;
        if (!fs.analyzePath(path).exists) fs.mkdir(path);
        made.add(path);
      }
    };
    const root = PGlite.paths.PGDATA;
    for (const directory of this.dump.directories) makeDirectory(root + directory);
    for (const file of this.dump.files) {
      const path = root + file.path;
      makeDirectory(path.slice(0, path.lastIndexOf('/')));
      // Copied (see readDataDirDump): PostgreSQL writes into its files, and the dump serves
      // every copy of the fork. The files' times are the copy's own: PostgreSQL reads none.
      fs.writeFile(path, file.bytes);
    }
  }
}

/** PGlite's own files (share/: time zones, text search, …), read from its package once per fork, not per copy. */
let fsBundle: Blob | undefined;
const pgliteFsBundle = () =>
  (fsBundle ??= new Blob([
    readFileSync(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data')),
  ]));

/** The suite's dumps, read and split into files once per fork: every file of a fork starts from them. */
const dumpsByPath = new Map<string, DataDirDump>();

/**
 * A fresh PGlite on a copy of the data dir dumped to `dumpPath` (a test file's own database).
 * `keep`: the dump stays read for later copies (the suite's own dumps, which never change).
 */
export async function openEmbeddedCopy(dumpPath: string, { keep }: { keep: boolean }): Promise<PGlite> {
  let dump = dumpsByPath.get(dumpPath);
  if (dump === undefined) {
    dump = readDataDirDump(readFileSync(dumpPath));
    if (keep) dumpsByPath.set(dumpPath, dump);
  }
  return PGlite.create({
    fs: new DumpedMemoryFS(dump),
    fsBundle: pgliteFsBundle(),
    parsers: pgliteParsers,
  });
}
