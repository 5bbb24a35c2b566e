import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildOncePerSources } from './build-once.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSOLE = join(ROOT, 'console');
/** What the build reads: the console's own files, and the lockfile that pins Vite and React. */
const INPUTS = ['src', 'build', 'index.html', 'package.json', 'vite.config.ts', 'tsconfig.json'];

/**
 * The console as `npm run build` builds it (Vite), shared by every test that serves it. Each of the
 * 17 files that serve the console used to build its own (9 s each on a loaded 2-core machine,
 * blocking its fork).
 */
export function buildConsole(): string {
  return buildOncePerSources({
    prefix: 'pa-console-build-',
    inputs: [...INPUTS.map((input) => join(CONSOLE, input)), join(ROOT, 'package-lock.json')],
    marker: 'index.html',
    build(outDir) {
      const vite = join(CONSOLE, 'node_modules', 'vite', 'bin', 'vite.js');
      execFileSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
        cwd: CONSOLE,
        // The suite runs with NODE_ENV=test, which would give React's development build.
        env: { ...process.env, NODE_ENV: 'production' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    },
  });
}
