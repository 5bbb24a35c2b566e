import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a consumer gets it: built by its own build script (sdk/scripts/build.mjs) into a
 * scratch copy of the package, packed (dry run), imported by its name from plain Node, and
 * compiled against by a TypeScript consumer. Nothing is written inside the repository.
 */

const run = promisify(execFile);

/** What the README's examples take as given: the reader's own functions and objects. */
const README_GIVENS = [
  "declare const client: import('@platform-api/sdk').PlatformClient;",
  'declare const session: { current(): Promise<{ accessToken: string } | undefined> };',
  'declare const window: { location: { assign(url: string): void } };',
  'declare const name: string;',
  'declare function showFieldErrors(fields: Array<[string, string]>): void;',
  'declare function showBanner(text: string): void;',
  'declare function showForbidden(details: unknown): void;',
  'declare function toast(text: string): void;',
];

/** Every TypeScript block of the package's README, each in a function of its own, imports first. */
function readmeProgram(): string {
  const readme = readFileSync(join(SDK, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!.split('\n'));
  const imports = new Set(blocks.flat().filter((line) => line.startsWith('import ')));
  const bodies = blocks.map(
    (lines, i) =>
      `export async function example${i}() {\n${lines.filter((line) => !line.startsWith('import ')).join('\n')}\n}`,
  );
  return [...imports, ...README_GIVENS, ...bodies, ''].join('\n');
}
const ROOT = join(import.meta.dirname, '../..');
const SDK = join(ROOT, 'sdk');

let scratch: string;
/** The package's copy: package.json, README.md, dist/. */
let pkg: string;
/** A consumer with the package installed under its name. */
let app: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'sdk-build-'));
  // The package's own dependencies (openapi-fetch) and TypeScript, as an install would provide them.
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  pkg = join(scratch, 'pkg');
  app = join(scratch, 'app');
  mkdirSync(pkg);
  mkdirSync(join(app, 'node_modules', '@platform-api'), { recursive: true });
  symlinkSync(pkg, join(app, 'node_modules', '@platform-api', 'sdk'), 'dir');
  for (const file of ['package.json', 'README.md']) copyFileSync(join(SDK, file), join(pkg, file));
  await run(process.execPath, [join(SDK, 'scripts', 'build.mjs'), join(pkg, 'dist')]);
}, 60_000);
afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('the @platform-api/sdk package', () => {
  it('every file its exports name is built', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    const targets = [manifest.types, ...Object.values(manifest.exports['.'])] as string[];
    for (const target of targets) expect(existsSync(join(pkg, target)), target).toBe(true);
    // tsc does not emit a .d.ts it was given: the build copies the generated types.
    expect(existsSync(join(pkg, 'dist', 'schema.d.ts'))).toBe(true);
  });

  it('packs dist/ and the README, and no sources', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkg });
    const files: string[] = JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts']),
    );
    expect(
      files.filter((file) => !file.startsWith('dist/') && file !== 'README.md' && file !== 'package.json'),
    ).toEqual([]);
  });

  it('imports by its name from plain Node (ESM)', async () => {
    const check = join(app, 'check.mjs');
    writeFileSync(
      check,
      "const sdk = await import('@platform-api/sdk');\nconsole.log(JSON.stringify(Object.keys(sdk)));\n",
    );
    const { stdout } = await run(process.execPath, [check], { cwd: app });
    expect(JSON.parse(stdout)).toEqual(
      expect.arrayContaining([
        'createPlatformClient',
        'unwrap',
        'apiErrorOf',
        'PlatformApiError',
        'paginate',
        'connectRealtime',
      ]),
    );
  });

  it("types a consumer, and the README's examples: paths, bodies and answers checked against the document", async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        "import { createPlatformClient, paginate, unwrap } from '@platform-api/sdk';",
        "const client = createPlatformClient({ baseUrl: 'https://api.example.test', token: () => 'token' });",
        'export async function bannedEmails(): Promise<Array<string | null>> {',
        '  const emails: Array<string | null> = [];',
        "  const users = paginate(client, '/v1/admin/users', { params: { query: { status: 'banned' } } });",
        '  for await (const user of users) emails.push(user.email);',
        '  return emails;',
        '}',
        'export async function checkout(): Promise<string | null> {',
        "  const body = { priceId: 'price_1', successUrl: 'https://a.test/ok', cancelUrl: 'https://a.test/no' };",
        "  return (await unwrap(client.POST('/v1/me/billing/checkout-session', { body }))).url;",
        '}',
        '// @ts-expect-error: no such path, so the types are real and not `any`',
        "void client.GET('/v1/no-such-path');",
        "// @ts-expect-error: 'suspended' is not a user status",
        "void client.GET('/v1/admin/users', { params: { query: { status: 'suspended' } } });",
        '// @ts-expect-error: a list with a path parameter needs it',
        "void paginate(client, '/v1/admin/site/settings/{section}/versions');",
        "void paginate(client, '/v1/admin/site/settings/{section}/versions', { params: { path: { section: 'seo' } } });",
        '// @ts-expect-error: not a list',
        "void paginate(client, '/v1/me');",
        '',
      ].join('\n'),
    );
    writeFileSync(join(app, 'readme.ts'), readmeProgram());
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          skipLibCheck: true,
          noEmit: true,
        },
        files: ['consumer.ts', 'readme.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
    // A whole tsc run: seconds alone, several times that on a loaded CI machine.
  }, 60_000);
});
