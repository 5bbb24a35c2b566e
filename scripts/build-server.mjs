// Builds the service into dist/ as one bundle (decision 0107): a start then reads a few dozen files
// instead of about 1,500 ES modules, which halves its CPU to the first answer. `npm run typecheck`
// checks the types; this only compiles. Usage: node scripts/build-server.mjs [outdir] (default dist).
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Packages loaded from node_modules rather than bundled, because they read their own files at run
 * time (__dirname, their package.json, a WASM or static folder) or are optional and absent.
 */
const LOADED_FROM_NODE_MODULES = [
  '@electric-sql/pglite', // its WASM and data files
  '@fastify/swagger', // its package.json
  '@fastify/swagger-ui', // its static folder
  'ioredis', // its package.json, its error stacks
  'pino', // its transports run files of its own in worker threads
  'pino-pretty',
  'pg-native', // optional: pg requires it only when asked for
];

const outdir = process.argv[2] ?? 'dist';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outdir,
  bundle: true,
  splitting: true, // what the service imports on first use (docs UI, peers' SDKs, PGlite) stays lazy
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: LOADED_FROM_NODE_MODULES,
  // The CommonJS packages inside the bundle call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// A bundled package that looks for its own files would find dist/ instead, and fail only when that
// code runs: refuse the build, naming the file, so the package joins the list above.
const bundled = readdirSync(outdir).filter((file) => file.endsWith('.js'));
const lookups = bundled.flatMap((file) =>
  readFileSync(join(outdir, file), 'utf8')
    .split('\n')
    .flatMap((line, index) =>
      /\b__(dirname|filename)\b/.test(line) ? [`${file}:${index + 1}: ${line.trim().slice(0, 160)}`] : [],
    ),
);
if (lookups.length > 0) {
  throw new Error(
    `bundled code reads its own location (add its package to LOADED_FROM_NODE_MODULES):\n${lookups.join('\n')}`,
  );
}

// The SQL migrations are plain files read at run time, beside the bundle (src/db/migrate.ts).
cpSync('src/db/migrations', join(outdir, 'migrations'), { recursive: true, filter: (path) => !path.endsWith('.ts') });
