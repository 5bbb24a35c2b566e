import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../helpers/data-dir.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cli, serve, type CliRun } from './cli-process.js';
import { cliInProcess } from './command-line.js';

/**
 * What an operator sees when a start goes wrong (issue 28, items 14, 15 and 17): one line naming
 * the setting at fault, exit 1, nothing on stdout, never a token or a credential. Each case runs
 * the CLI's dispatcher in this process, as main.ts runs it (test/cli/entry-point.test.ts runs the
 * process itself; test/cli/serve.test.ts serves from a DATA_DIR serve made); on the PostgreSQL run
 * (TEST_DATABASE_URL) the cases that touch a database run on a PostgreSQL database as well.
 */

const SECRET = 'start-errors-secret-0123456789-abcdefghij';
const PASSWORD = 'Sup3r-Secret-Passw0rd';
const SUB = '6f1c1c57-4444-4000-8000-00000000000d';
const ON_POSTGRES = process.env.TEST_DATABASE_URL !== undefined;
const TTL_FORMS = 'a whole number of seconds, minutes, hours or days from 1s to 365d, like 90s, 15m, 1h or 7d';
const TOKEN_USAGE = 'Usage: platform-api token --sub <uuid>';

/** A refused start: exit 1, exactly this on stderr, nothing on stdout (no token, no banner). */
function expectRefused(run: CliRun, stderr: string): void {
  expect(run).toEqual({ code: 1, stdout: '', stderr });
}

/** A usage error of `token`: the message, a blank line, then the command's usage. */
function expectTokenUsage(run: CliRun, message: string): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
  expect(run.stderr.startsWith(`${message}\n\n${TOKEN_USAGE}`), run.stderr).toBe(true);
}

/** A port something else already listens on. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('start errors name their setting', () => {
  let dir: string;
  let occupied: { port: number; server: Server };
  let postgres: TestDatabase | undefined;
  const runs = new Map<string, CliRun>();
  /** `ownProcess`: the case opens a new embedded database, whose initdb holds an event loop for seconds. */
  type Case = { args: string[]; env: Record<string, string>; stderr?: string; ownProcess?: true };
  let table: Record<string, Case> = {};
  /** The embedded cases' DATA_DIR: a migrated database, as the starts that fail find it. */
  const embeddedDir = () => join(dir, 'embedded');

  /** Each case: the command, its settings, and (for refusals) the exact stderr. */
  const cases = (): Record<string, Case> => {
    const refusedUrl = `postgres://platform:${PASSWORD}@127.0.0.1:1/platform`;
    const onEmbedded = { DATA_DIR: embeddedDir(), JWT_SECRET: SECRET };
    const badHost = {
      args: ['serve'],
      env: { ...onEmbedded, HOST: 'nohost.invalid', PORT: '0' },
      stderr:
        'Start failed: HOST: "nohost.invalid" is not a known host name ' + '(getaddrinfo ENOTFOUND nohost.invalid)\n',
    };
    const portInUse = {
      args: ['serve'],
      env: { ...onEmbedded, HOST: '127.0.0.1', PORT: String(occupied.port) },
      stderr:
        `Start failed: PORT: ${occupied.port} is already in use on 127.0.0.1 ` +
        `(listen EADDRINUSE: address already in use 127.0.0.1:${occupied.port})\n`,
    };
    const withSecret = { JWT_SECRET: SECRET };
    const production = (dataDir: string, more: Record<string, string> = {}) => ({
      NODE_ENV: 'production',
      DATA_DIR: join(dir, dataDir),
      PORT: '0',
      ...more,
    });
    const noDatabaseInProduction =
      'Configuration error: DATABASE_URL: must be set when NODE_ENV=production ' +
      '(the embedded database and its development owner token are for development only)\n';
    const refused =
      'Start failed: DATABASE_URL: cannot use the database at 127.0.0.1:1/platform: ' +
      'connect ECONNREFUSED 127.0.0.1:1\n';
    const token = (...args: string[]): Case => ({ args: ['token', '--sub', SUB, ...args], env: withSecret });
    const underFile = join(dir, 'a-file', 'data');
    const all: Record<string, Case> = {
      // Item 15: production never falls back to the embedded development mode.
      productionBare: { args: ['serve'], env: production('production'), stderr: noDatabaseInProduction },
      productionNoSecret: {
        args: ['serve'],
        env: production('production-2', { DATABASE_URL: refusedUrl }),
        stderr:
          'Configuration error: JWT_SECRET: set JWT_SECRET or JWKS_URL when NODE_ENV=production ' +
          '(the made-up dev secret is for development only)\n',
      },
      productionToken: {
        args: ['token', '--sub', SUB],
        env: production('production-3'),
        stderr: noDatabaseInProduction,
      },
      // Item 17: what a connection failure names, and what it never prints.
      refusedServe: { args: ['serve'], env: { ...withSecret, DATABASE_URL: refusedUrl, PORT: '0' }, stderr: refused },
      refusedMigrate: { args: ['migrate'], env: { ...withSecret, DATABASE_URL: refusedUrl }, stderr: refused },
      unknownDatabaseHost: {
        args: ['migrate'],
        env: { DATABASE_URL: `postgres://platform:${PASSWORD}@nohost.invalid/platform`, JWT_SECRET: SECRET },
        stderr:
          'Start failed: DATABASE_URL: cannot use the database at nohost.invalid:5432/platform: ' +
          'getaddrinfo ENOTFOUND nohost.invalid\n',
      },
      badHost,
      portInUse,
      tokenSubNotUuid: { args: ['token', '--sub', 'bob'], env: { JWT_SECRET: SECRET } },
      tokenTtlForever: token('--ttl', 'forever'),
      tokenTtlZero: token('--ttl', '0s'),
      tokenTtlTooLong: token('--ttl', '366d'),
      tokenClaimAud: token('--claim', 'aud=anon'),
      tokenClaimExp: token('--claim', 'exp=99999999999'),
      tokenClaimEmailTwice: token('--email', 'a@example.test', '--claim', 'email=b@example.test'),
      tokenClaimProto: token('--claim', '__proto__.role=x'),
      tokenClaimHonoured: token('--claim', 'role=service_role', '--claim', 'session_id=s-1'),
      // Item 14: a DATA_DIR that does not exist yet is made; one that cannot be is named.
      missingDataDirMigrate: {
        args: ['migrate'],
        env: { ...withSecret, DATA_DIR: join(dir, 'missing', 'a', 'b') },
        ownProcess: true,
      },
      dataDirUnderFile: {
        args: ['migrate'],
        env: { DATA_DIR: underFile, JWT_SECRET: SECRET },
        stderr:
          `Configuration error: DATA_DIR: cannot use ${underFile}: ` +
          `ENOTDIR: not a directory, mkdir '${underFile}'\n`,
      },
    };
    if (postgres !== undefined) {
      const onPostgres = { DATABASE_URL: postgres.url!, JWT_SECRET: SECRET };
      const missing = `nodb_${randomUUID().replaceAll('-', '')}`;
      const url = new URL(postgres.url!);
      url.password = PASSWORD;
      url.pathname = `/${missing}`;
      Object.assign(all, {
        badHostPostgres: { ...badHost, env: { ...badHost.env, ...onPostgres } },
        portInUsePostgres: { ...portInUse, env: { ...portInUse.env, ...onPostgres } },
        missingDatabase: {
          args: ['migrate'],
          env: { DATABASE_URL: url.toString(), JWT_SECRET: SECRET },
          stderr:
            'Start failed: DATABASE_URL: cannot use the database at ' +
            `${url.hostname}:${url.port || '5432'}/${missing}: database "${missing}" does not exist\n`,
        },
      });
    }
    return all;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pa-start-errors-'));
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    occupied = await occupiedPort();
    if (ON_POSTGRES) postgres = await createTestDatabase();
    table = cases();
    await prepareDataDir(embeddedDir());
    // The embedded cases share one DATA_DIR, so they run one after another: in one process the
    // lock cannot tell two of them apart, and two PGlite instances on one directory destroy it.
    const entries = Object.entries(table);
    // The PostgreSQL cases first, one at a time: an embedded database opening in this process holds
    // its event loop for seconds, and a connection's 5 s timer would fire before its socket is read.
    const onPostgres = entries.filter(([, { env }]) => env.DATABASE_URL !== undefined);
    const embedded = entries.filter(([, { env }]) => env.DATA_DIR === embeddedDir() && env.DATABASE_URL === undefined);
    const others = entries.filter((entry) => !embedded.includes(entry) && !onPostgres.includes(entry));
    // A case that pays an initdb runs in a process of its own: in this one it would hold the event loop
    // long enough for a concurrent start's plugin timer (10 s) to fire.
    const runCase = async ([name, { args, env, ownProcess }]: [string, Case]) =>
      runs.set(name, await (ownProcess ? cli(args, env, 240_000) : cliInProcess(args, env)));
    for (const entry of onPostgres) await runCase(entry);
    const embeddedChain = async () => {
      for (const entry of embedded) await runCase(entry);
    };
    await Promise.all([embeddedChain(), ...others.map(runCase)]);
    // migrate on a missing DATA_DIR pays a whole initdb: most of a minute on a loaded machine.
  }, 300_000);
  afterAll(async () => {
    occupied?.server.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusals = [
    'productionBare',
    'productionNoSecret',
    'productionToken',
    'refusedServe',
    'refusedMigrate',
    'unknownDatabaseHost',
    'badHost',
    'portInUse',
    'dataDirUnderFile',
    ...(ON_POSTGRES ? ['badHostPostgres', 'portInUsePostgres', 'missingDatabase'] : []),
  ];
  it.each(refusals)('%s: exit 1 with one line naming the setting', (name) => {
    expectRefused(runs.get(name)!, table[name]!.stderr!);
  });

  it('production without DATABASE_URL makes nothing in DATA_DIR: no dev secret, no dev owner', () => {
    expect(existsSync(join(dir, 'production'))).toBe(false);
    expect(existsSync(join(dir, 'production-3'))).toBe(false);
  });

  it('no output of any refused start holds the DATABASE_URL password', () => {
    for (const [name, run] of runs) expect(`${run.stdout}${run.stderr}`, name).not.toContain(PASSWORD);
  });

  it('a failed listen on the embedded database lets go of DATA_DIR: no lock left, the next start works', async () => {
    expect(readdirSync(join(embeddedDir(), 'lock'))).toEqual([]);
    const migrated = await cliInProcess(['migrate'], { DATA_DIR: embeddedDir(), JWT_SECRET: SECRET });
    expect(migrated).toEqual({ code: 0, stdout: 'Database is up to date.\n', stderr: '' });
  }, 60_000);

  it('token --sub bob: the sub is given but is not a uuid, and the message says so', () => {
    expectTokenUsage(runs.get('tokenSubNotUuid')!, '--sub must be a uuid (the user\'s id), got "bob"');
  });

  it.each([
    ['tokenTtlForever', 'forever'],
    ['tokenTtlZero', '0s'],
    ['tokenTtlTooLong', '366d'],
  ])('%s: a malformed --ttl says what forms are accepted', (name, ttl) => {
    expectTokenUsage(runs.get(name)!, `--ttl must be ${TTL_FORMS}; got "${ttl}"`);
  });

  it.each([
    [
      'tokenClaimAud',
      '--claim aud: set by the token command itself ' + '(always "authenticated", the audience the service accepts)',
    ],
    ['tokenClaimExp', '--claim exp: set by the token command itself (from --ttl)'],
    ['tokenClaimEmailTwice', '--claim email and --email both set the email: give it once'],
    ['tokenClaimProto', '--claim must be key=value with a name or dotted names as the key, got "__proto__.role=x"'],
  ])('%s: a claim the token would not carry as given is refused, never dropped', (name, message) => {
    expectTokenUsage(runs.get(name)!, message);
  });

  it('claims the command only defaults (role, session_id) are honoured as given', () => {
    const run = runs.get('tokenClaimHonoured')!;
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const claims = decodeJwt(run.stdout.trim());
    expect(claims).toMatchObject({ sub: SUB, aud: 'authenticated', role: 'service_role', session_id: 's-1' });
  });

  it('migrate makes a DATA_DIR that does not exist, parents included', () => {
    const run = runs.get('missingDataDirMigrate')!;
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Applied: 0001_kernel\.sql, /);
    expect(existsSync(join(dir, 'missing', 'a', 'b', 'pglite'))).toBe(true);
  });

  it.runIf(ON_POSTGRES)(
    'production on PostgreSQL serves and never mints or prints a development token',
    async () => {
      const dataDir = join(dir, 'production-postgres');
      const env = { NODE_ENV: 'production', DATABASE_URL: postgres!.url!, JWT_SECRET: SECRET, DATA_DIR: dataDir };
      const served = await serve(env);
      try {
        expect((await fetch(`${served.base}/health`)).status).toBe(200);
        const { stdout, stderr } = served.output();
        // The console's address without a sign-in link: production signs staff in at the identity provider.
        const banner =
          /^Platform API listening on http:\/\/127\.0\.0\.1:\d+ \(PostgreSQL\)\nAPI reference: \S+\/docs\nStaff console: \S+\/admin\n$/;
        expect(stdout).toMatch(banner);
        expect(`${stdout}${stderr}`).not.toMatch(/token|Bearer|eyJ/);
        expect(existsSync(join(dataDir, 'dev-owner'))).toBe(false);
        expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(false);
      } finally {
        expect(await served.stop()).toBe(0);
      }
    },
    60_000,
  );
});
