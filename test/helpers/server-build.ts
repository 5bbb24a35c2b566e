import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buildOncePerSources } from './build-once.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The service as `npm run build` builds it (scripts/build-server.mjs, one bundle), for the tests that
 * run it as a process: the CLI, `serve`, SIGTERM. Node starts the bundle in about a fifth of the CPU
 * that loading src/ through tsx takes (0.5 s against 3 s for `--help`), and the tests run what
 * production runs. Laid out as the package is: `dist/` beside the package's `node_modules`, which the
 * packages left out of the bundle are loaded from. Returns the path of `main.js`.
 */
export function builtServer(): string {
  const dir = buildOncePerSources({
    prefix: 'pa-server-build-',
    inputs: [join(ROOT, 'src'), join(ROOT, 'scripts', 'build-server.mjs'), join(ROOT, 'package-lock.json')],
    marker: join('dist', 'main.js'),
    build(outDir) {
      mkdirSync(outDir, { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-server.mjs'), join(outDir, 'dist')], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    },
  });
  return join(dir, 'dist', 'main.js');
}
