/**
 * Builds the package into dist/ (or the directory given): tsc's ESM and declarations, then the
 * generated schema.d.ts, which tsc reads but never emits. test/sdk/build.test.ts runs it too.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(sdk, 'dist'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

// Files of modules since renamed or removed must not ship.
rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.json'), '--outDir', outDir], { stdio: 'inherit' });
copyFileSync(join(sdk, 'src', 'schema.d.ts'), join(outDir, 'schema.d.ts'));
