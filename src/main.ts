import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createLogger } from './kernel/http/logging.js';
import { buildApp } from './app.js';
import { ConfigError, ensureDataDir, loadConfig, redactSecrets, resolveDevSecret, type Config } from './config.js';
import { DataDirInUse, lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { openDatabase, type Database } from './db/database.js';
import { EmbeddedVacuum } from './db/embedded-vacuum.js';
import { migrate } from './db/migrate.js';
import { asRead } from './lib/split-pool.js';
import { createKernel } from './kernel/kernel.js';
import { drainAndStop } from './kernel/shutdown.js';
import {
  checkMintOptions,
  mintToken,
  parseClaims,
  parseTtl,
  TokenOptionError,
  type MintOptions,
} from './kernel/auth/token-mint.js';
import { AREA_SERVICES } from './modules/index.js';
import { grantBootstrapOwners } from './modules/roles/bootstrap.js';
import { RuntimeSimulator } from './runtime-sim/simulator.js';

const HELP = {
  main: `Usage: platform-api <command> [options]

Commands:
  serve        migrate the database and serve the API (default)
  migrate      apply pending database migrations and exit
  token        mint an HS256 access token from the configured secret
  runtime-sim  serve the runtime simulator alone (the Runtime HTTP API, in memory)

Settings come from the environment; see README "Configuration".
Run "platform-api <command> --help" for a command's options.`,
  serve: `Usage: platform-api serve

Applies pending migrations, grants BOOTSTRAP_OWNER the owner role, and serves on HOST:PORT.
With the embedded database and no JWT_SECRET/JWKS_URL it prints a ready owner token (a
development mode: NODE_ENV=production requires DATABASE_URL and JWT_SECRET or JWKS_URL).
SIGTERM/SIGINT turn /health/ready to 503, serve on for SHUTDOWN_DELAY_MS, stop accepting, and
finish in-flight work (requests, realtime sockets closed with 1001, the running job, mail being
sent) within SHUTDOWN_TIMEOUT_MS (10 s): exit 0, or 1 when the timeout had to cut work short.`,
  migrate: `Usage: platform-api migrate

Applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR) and exits.
On PostgreSQL it is safe to run while other instances start: an advisory lock serialises
migrators. The embedded database belongs to one process: refused while a serve holds DATA_DIR.`,
  token: `Usage: platform-api token --sub <uuid> [--email e] [--ttl 1h] [--claim k=v ...]

Mints an HS256 token with aud "authenticated" signed with JWT_SECRET (or the embedded dev
secret in DATA_DIR). --ttl is a whole number of s, m, h or d, from 1s to 365d. --claim may
repeat; dotted keys nest (app_metadata.provider=github) and JSON values are parsed
(--claim 'amr=["pwd"]'); sub, aud, iat and exp are set by the command and refused as claims.`,
  'runtime-sim': `Usage: platform-api runtime-sim [--host 127.0.0.1] [--port 8090] [--pull-delay-ms 1500] [--no-seed]

Serves the Runtime HTTP API (docs/runtime-api.md) from memory, for pointing RUNTIME_URL at
during development. Clients authenticate with RUNTIME_API_KEY, read from the environment
(required; never from argv, where "ps" would show it). Seeded with pool "default" and nodes
node-1 and node-2 unless --no-seed. Image pulls take --pull-delay-ms; an image whose reference
contains "does-not-exist" fails. SIGTERM/SIGINT stop it.`,
};

const DEV_OWNER_TOKEN_TTL_SECONDS = 12 * 3_600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The embedded default's owner: one subject kept in DATA_DIR, so its tokens survive restarts. */
function devOwnerSubject(dataDir: string): string {
  const file = join(dataDir, 'dev-owner');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomUUID(), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

async function serve(): Promise<void> {
  const config = resolveDevSecret(loadConfig());
  const log = createLogger(config.logLevel);
  let database: Database;
  if (config.databaseUrl !== undefined) {
    await migratePostgres(config);
    database = await connectPostgres(config);
  } else {
    database = await openEmbedded(config, 'serve');
    await migrate(database.db);
  }
  const devOwner = config.jwtSecretSource === 'generated' ? devOwnerSubject(config.dataDir) : undefined;
  await grantBootstrapOwners(database.db, [...config.bootstrapOwners, ...(devOwner ? [devOwner] : [])]);

  const kernel = await createKernel(config, database, log, AREA_SERVICES, {
    localPaymentsStateFile: join(config.dataDir, 'local-payments.json'),
  });
  await kernel.start();
  const app = await buildApp(kernel);
  try {
    await database.warm();
  } catch (error) {
    // Not a reason to refuse traffic: the pool opens what it lacks when it is needed.
    log.warn({ err: { message: (error as Error).message } }, 'could not open every pooled database session at start');
  }
  await listen(app, config, async () => {
    await kernel.stop();
    await database.close();
  });
  // PGlite has no autovacuum of its own; PostgreSQL servers do.
  const vacuum = database.kind === 'pglite' ? new EmbeddedVacuum(database.db, log) : undefined;
  vacuum?.start();

  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const lines = [
    `Platform API listening on ${base} ` +
      `(${database.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    `API reference: ${base}/docs`,
  ];
  if (devOwner !== undefined && config.jwtSecret !== undefined) {
    const token = await mintToken(config.jwtSecret, {
      subject: devOwner,
      email: 'owner@localhost',
      ttlSeconds: DEV_OWNER_TOKEN_TTL_SECONDS,
    });
    lines.push(
      '',
      'Development owner token (valid 12 h; "npm run cli -- token --sub <uuid>" mints more):',
      `  ${token}`,
      'Try:',
      `  curl -H "Authorization: Bearer ${token}" ${base}/v1/admin/roles`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const outcome = await drainAndStop({
      app,
      drain: kernel.drain,
      log,
      delayMs: config.shutdownDelayMs,
      timeoutMs: config.shutdownTimeoutMs,
      closeAfter: [
        ['vacuum', async () => vacuum?.stop()],
        ['kernel', () => kernel.stop()],
        ['database', () => database.close()],
      ],
    });
    process.exit(outcome === 'drained' ? 0 : 1);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * PostgreSQL migrates on a connection of its own without the serving statement timeout: a
 * migration may legitimately run longer than any request should (an index on a big table).
 */
async function migratePostgres(config: Config): Promise<string[]> {
  const database = await connectPostgres(config, { statementTimeoutMs: 0, poolMax: 1 });
  try {
    return await migrate(database.db);
  } finally {
    await database.close();
  }
}

/**
 * The embedded database, locked to this process until it is closed (or the process ends):
 * PGlite opened by two processes on one directory is destroyed.
 */
async function openEmbedded(config: Config, command: 'serve' | 'migrate'): Promise<Database> {
  const lock = lockEmbedded(config, command);
  let database: Database;
  try {
    database = await openDatabase(config);
  } catch (error) {
    lock.release();
    const where = join(config.dataDir, 'pglite');
    throw new StartError('DATA_DIR', `cannot open the embedded database in ${where}: ${(error as Error).message}`);
  }
  return {
    ...database,
    async close() {
      await database.close();
      lock.release();
    },
  };
}

function lockEmbedded(config: Config, command: string): DataDirLock {
  ensureDataDir(config.dataDir);
  try {
    return lockDataDir(config.dataDir, command);
  } catch (error) {
    if (error instanceof DataDirInUse) throw new StartError('DATA_DIR', error.message);
    throw new StartError('DATA_DIR', `cannot lock ${config.dataDir}: ${(error as Error).message}`);
  }
}

/** A PostgreSQL pool that has answered once: a server that cannot be reached is named as DATABASE_URL's. */
async function connectPostgres(config: Config, options: Parameters<typeof openDatabase>[1] = {}): Promise<Database> {
  const database = await openDatabase(config, options);
  try {
    await asRead(sql`SELECT 1`).execute(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    const address = databaseAddress(config.databaseUrl!);
    throw new StartError('DATABASE_URL', `cannot use the database at ${address}: ${(error as Error).message}`);
  }
  return database;
}

/** Host, port and database name of a PostgreSQL URL: never its user or password. */
function databaseAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}${decodeURIComponent(url.pathname)}`;
}

/** Errors of binding HOST:PORT, by the setting that is wrong. */
const LISTEN_FAILURES: Record<string, (config: Config) => [setting: string, problem: string]> = {
  ENOTFOUND: (config) => ['HOST', `"${config.host}" is not a known host name`],
  EAI_AGAIN: (config) => ['HOST', `"${config.host}" could not be resolved (the name service did not answer)`],
  EADDRNOTAVAIL: (config) => ['HOST', `${config.host} is not an address of this machine`],
  EADDRINUSE: (config) => ['PORT', `${config.port} is already in use on ${config.host}`],
  EACCES: (config) => ['PORT', `${config.port} on ${config.host} needs privileges this process does not have`],
};

/** Listens on HOST:PORT; on failure, `stop` closes what was started and the setting at fault is named. */
async function listen(app: FastifyInstance, config: Config, stop: () => Promise<void>): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    await stop().catch(() => {});
    const named = LISTEN_FAILURES[(error as NodeJS.ErrnoException).code ?? ''];
    if (named === undefined) throw error;
    const [setting, problem] = named(config);
    throw new StartError(setting, `${problem} (${(error as Error).message})`);
  }
}

async function migrateOnly(): Promise<void> {
  const config = loadConfig();
  let applied: string[];
  if (config.databaseUrl !== undefined) {
    applied = await migratePostgres(config);
  } else {
    const database = await openEmbedded(config, 'migrate');
    try {
      applied = await migrate(database.db);
    } finally {
      await database.close();
    }
  }
  process.stdout.write(applied.length === 0 ? 'Database is up to date.\n' : `Applied: ${applied.join(', ')}\n`);
}

async function token(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sub: { type: 'string' },
      email: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      claim: { type: 'string', multiple: true, default: [] },
    },
  });
  if (values.sub === undefined) throw new UsageError('--sub <uuid> is required', 'token');
  if (!UUID.test(values.sub)) {
    throw new UsageError(`--sub must be a uuid (the user's id), got "${values.sub}"`, 'token');
  }
  // Every option is checked before the secret is looked up: a typo is a usage error, not a config one.
  let options: MintOptions;
  try {
    const ttlSeconds = parseTtl(values.ttl);
    options = { subject: values.sub, email: values.email, ttlSeconds, claims: parseClaims(values.claim) };
    checkMintOptions(options);
  } catch (error) {
    if (error instanceof TokenOptionError) throw new UsageError(error.message, 'token');
    throw error;
  }
  const config = resolveDevSecret(loadConfig());
  if (config.jwtSecret === undefined)
    throw new ConfigError('JWT_SECRET', 'not set; the token command signs HS256 tokens with it');
  const minted = await mintToken(config.jwtSecret, options);
  process.stdout.write(`${minted}\n`);
}

async function runtimeSimulator(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8090' },
      'pull-delay-ms': { type: 'string', default: '1500' },
      'no-seed': { type: 'boolean', default: false },
    },
  });
  const port = integerOption(values.port, '--port', 0, 65_535);
  const pullDelayMs = integerOption(values['pull-delay-ms'], '--pull-delay-ms', 0, 3_600_000);
  const apiKey = process.env.RUNTIME_API_KEY;
  if (apiKey === undefined || apiKey === '')
    throw new ConfigError(
      'RUNTIME_API_KEY',
      'must be set to the key clients will present (it is read from the environment only)',
    );

  const simulator = new RuntimeSimulator({ apiKey, pullDelayMs, seed: !values['no-seed'] });
  const url = await simulator.listen(values.host, port);
  process.stdout.write(
    `Runtime simulator listening on ${url} ` +
      `(${values['no-seed'] ? 'empty' : 'seeded: pool default, nodes node-1 and node-2'})\n`,
  );
  const shutdown = () => void simulator.close().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

function integerOption(value: string, name: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}`, 'runtime-sim');
  return parsed;
}

class UsageError extends Error {
  constructor(
    message: string,
    readonly command: keyof typeof HELP,
  ) {
    super(message);
  }
}

/** A start that failed on what a setting points at (a server that does not answer, an address in use). */
class StartError extends Error {
  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help')
    return void process.stdout.write(`${HELP.main}\n`);
  if (!(command in HELP) || command === 'main') throw new UsageError(`unknown command "${command}"`, 'main');
  if (rest.includes('--help') || rest.includes('-h'))
    return void process.stdout.write(`${HELP[command as keyof typeof HELP]}\n`);
  if (command === 'serve') return serve();
  if (command === 'migrate') return migrateOnly();
  if (command === 'runtime-sim') return runtimeSimulator(rest);
  return token(rest);
}

/** One line (usage errors add the usage), and never a configured credential, whatever the error quoted. */
function failureMessage(error: unknown): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}\n`;
  if (error instanceof UsageError) return `${error.message}\n\n${HELP[error.command]}\n`;
  if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    return `${error.message}\n`;
  }
  return `Start failed: ${error instanceof Error ? error.message : String(error)}\n`;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(redactSecrets(failureMessage(error)));
  process.exit(1);
});
