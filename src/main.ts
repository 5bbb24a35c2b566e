import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createLogger, prettyDestination, prettyLogs } from './kernel/http/logging.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, redactSecrets, resolveDevSecret, type Config } from './config.js';
import type { Database } from './db/database.js';
import { EmbeddedVacuum } from './db/embedded-vacuum.js';
import { migrate } from './db/migrate.js';
import { createKernel } from './kernel/kernel.js';
import { drainAndStop } from './kernel/shutdown.js';
import { mintToken } from './kernel/auth/token-mint.js';
import { AREA_SERVICES } from './modules/index.js';
import { grantBootstrapOwners } from './modules/roles/bootstrap.js';
import { AUDIT } from './cli/audit-export.js';
import { groupUsage, type Command, type CommandGroup } from './cli/command.js';
import { CONFIG } from './cli/config-check.js';
import { connectPostgres, migratePostgres, openEmbedded } from './cli/database.js';
import { DB } from './cli/db-status.js';
import { CommandFailure, StartError, UsageError } from './cli/errors.js';
import { MIGRATE_USAGE, migrateCommand } from './cli/migrate.js';
import { ROLES } from './cli/roles.js';
import { RUNTIME_SIM_USAGE, runtimeSimulatorCommand } from './cli/runtime-sim.js';
import { SEED_USAGE, seedCommand } from './cli/seed.js';
import { TOKEN_USAGE, tokenCommand } from './cli/token.js';
import { USERS } from './cli/users.js';

const SERVE_USAGE = `Usage: platform-api serve

Applies pending migrations, grants BOOTSTRAP_OWNER the owner role, and serves on HOST:PORT.
With the embedded database and no JWT_SECRET/JWKS_URL it prints a ready owner token (a
development mode: NODE_ENV=production requires DATABASE_URL and JWT_SECRET or JWKS_URL).
SIGTERM/SIGINT turn /health/ready to 503, serve on for SHUTDOWN_DELAY_MS, stop accepting, and
finish in-flight work (requests, realtime sockets closed with 1001, the running job, mail being
sent) within SHUTDOWN_TIMEOUT_MS (10 s): exit 0, or 1 when the timeout had to cut work short.`;

/** Every command, in the order the usage lists them; a group's subcommands follow its name (`roles list`). */
const COMMANDS: Record<string, Command | CommandGroup> = {
  serve: { summary: 'migrate the database and serve the API (default)', usage: SERVE_USAGE, run: () => serve() },
  migrate: { summary: 'apply pending database migrations and exit', usage: MIGRATE_USAGE, run: () => migrateCommand() },
  token: { summary: 'mint an HS256 access token from the configured secret', usage: TOKEN_USAGE, run: tokenCommand },
  'runtime-sim': {
    summary: 'serve the runtime simulator alone (the Runtime HTTP API, in memory)',
    usage: RUNTIME_SIM_USAGE,
    run: runtimeSimulatorCommand,
  },
  config: CONFIG,
  db: DB,
  users: USERS,
  roles: ROLES,
  audit: AUDIT,
  seed: { summary: 'write the demo data set (--demo), idempotently', usage: SEED_USAGE, run: seedCommand },
};

function mainUsage(): string {
  const lines: Array<[string, string]> = [];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if ('run' in entry) lines.push([name, entry.summary]);
    else
      for (const [sub, command] of Object.entries(entry.subcommands)) lines.push([`${name} ${sub}`, command.summary]);
  }
  const width = Math.max(...lines.map(([name]) => name.length));
  return [
    'Usage: platform-api <command> [options]',
    '',
    'Commands:',
    ...lines.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Settings come from the environment; see README "Configuration". Every command exits 0 when it',
    'did what it was asked and 1 otherwise (a usage error, an invalid setting, a failure), with',
    'one message on stderr.',
    'Run "platform-api <command> --help" for a command\'s options.',
  ].join('\n');
}

const DEV_OWNER_TOKEN_TTL_SECONDS = 12 * 3_600;
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
  const log = createLogger(
    config.logLevel,
    prettyLogs(config.logFormat, config.production) ? prettyDestination() : undefined,
    { traced: config.otelEndpoint !== undefined },
  );
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

/** The command `argv` names, and the arguments after its name; a usage error for a name that is none. */
function commandOf(argv: string[]): { command: Command; args: string[] } {
  const [name = 'serve', ...rest] = argv;
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command "${name}"`, mainUsage());
  if ('run' in entry) return { command: entry, args: rest };
  const [sub, ...args] = rest;
  const usage = groupUsage(name, entry);
  const command = sub !== undefined && Object.hasOwn(entry.subcommands, sub) ? entry.subcommands[sub] : undefined;
  if (command !== undefined) return { command, args };
  if (sub === '--help' || sub === '-h') return { command: { summary: '', usage, run: async () => {} }, args: [sub] };
  throw new UsageError(
    sub === undefined ? `"${name}" needs a subcommand` : `unknown subcommand "${name} ${sub}"`,
    usage,
  );
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')
    return void process.stdout.write(`${mainUsage()}\n`);
  const { command, args } = commandOf(argv);
  if (args.includes('--help') || args.includes('-h')) return void process.stdout.write(`${command.usage}\n`);
  await command.run(args);
}

/** Commands whose unexpected failures have always read "Start failed:" (they start something). */
const STARTING = new Set(['serve', 'migrate', 'token', 'runtime-sim', undefined]);

/** One line (usage errors add the usage), and never a configured credential, whatever the error quoted. */
function failureMessage(error: unknown, command: string | undefined): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}\n`;
  if (error instanceof UsageError) return `${error.message}\n\n${error.usage}\n`;
  if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    return `${error.message}\n`;
  }
  if (error instanceof CommandFailure) return `${command}: ${error.message}\n`;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StartError || STARTING.has(command)) return `Start failed: ${message}\n`;
  return `${command} failed: ${message}\n`;
}

const argv = process.argv.slice(2);
main(argv).catch((error: unknown) => {
  const command =
    argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) && !('run' in COMMANDS[argv[0]]!)
      ? `${argv[0]} ${argv[1] ?? ''}`.trim()
      : argv[0];
  process.stderr.write(redactSecrets(failureMessage(error, command)));
  process.exit(1);
});
