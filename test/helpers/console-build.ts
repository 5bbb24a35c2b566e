import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Builds the console with Vite, as `npm run build` does, into a directory of its own (a few seconds). */
export function buildConsole(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'console-build-'));
  const vite = join(ROOT, 'console', 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: join(ROOT, 'console'),
    // The suite runs with NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return outDir;
}
