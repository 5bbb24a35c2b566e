import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSOLE = join(ROOT, 'console');
/** What the build reads: the console's own files, and the lockfile that pins Vite and React. */
const INPUTS = ['src', 'build', 'index.html', 'package.json', 'vite.config.ts', 'tsconfig.json'];
const PREFIX = 'pa-console-build-';

/**
 * The console as `npm run build` builds it (Vite), shared by every test that serves it: one build
 * per content of its sources, kept in the temp directory under their hash. Each of the 17 files
 * that serve the console used to build its own (9 s each on a loaded 2-core machine, blocking its
 * fork). Readers must not change the directory.
 */
export function buildConsole(): string {
  const hash = sourcesHash();
  const outDir = join(tmpdir(), `${PREFIX}${hash}`);
  if (existsSync(join(outDir, 'index.html'))) return outDir;
  // Built aside and renamed into place: two forks building at once both succeed, one rename wins,
  // and no reader ever sees a half-written build.
  const staging = mkdtempSync(join(tmpdir(), `${PREFIX}staging-`));
  const vite = join(CONSOLE, 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--outDir', staging, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: CONSOLE,
    // The suite runs with NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    renameSync(staging, outDir);
    removeOlderBuilds(hash);
  } catch (error) {
    // Another fork's build of the same sources got there first: use it.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(outDir, 'index.html'))) throw error;
  }
  return outDir;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (!existsSync(path)) return;
    const entries = readdirSync(path, { withFileTypes: true, recursive: true });
    for (const entry of entries.filter((e) => e.isFile()).sort((a, b) => fullPath(a).localeCompare(fullPath(b)))) {
      hash.update(fullPath(entry)).update(readFileSync(fullPath(entry)));
    }
  };
  for (const input of INPUTS) {
    const path = join(CONSOLE, input);
    if (input.includes('.')) {
      if (existsSync(path)) hash.update(input).update(readFileSync(path));
    } else add(path);
  }
  hash.update(readFileSync(join(ROOT, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

const fullPath = (entry: { parentPath?: string; path?: string; name: string }) =>
  join(entry.parentPath ?? entry.path ?? '', entry.name);

/**
 * Builds of earlier sources (a few MB each) go after a day: not at once, since another checkout's
 * run on this machine may be serving its own build right now.
 */
function removeOlderBuilds(current: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (name.startsWith(PREFIX) && !name.endsWith(current) && statSync(path).mtimeMs < dayAgo) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
