import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig, resolveDevSecret, type Config } from '../config.js';
import type { Database } from '../db/database.js';
import { EmbeddedVacuum } from '../db/embedded-vacuum.js';
import { migrate } from '../db/migrate.js';
import { DEV_OWNER_EMAIL, DEV_OWNER_TOKEN_TTL_SECONDS } from '../modules/console/index.js';
import { mintToken } from '../kernel/auth/token-mint.js';
import { createLogger, prettyDestination, prettyLogs } from '../kernel/http/logging.js';
import { composePlatform } from '../composition/compose.js';
import type { Platform } from '../composition/platform.js';
import { drainAndStop } from '../kernel/shutdown.js';
import { grantBootstrapOwners } from '../modules/roles/bootstrap.js';
import type { CommandIo } from './command.js';
import { connectPostgres, migratePostgres, openEmbedded } from './database.js';
import { StartError } from './errors.js';
import { applyHeapPolicy } from './heap-policy.js';

export const SERVE_USAGE = `Usage: platform-api serve

Applies pending migrations, grants BOOTSTRAP_OWNER the owner role, and serves on HOST:PORT.
With the embedded database and no JWT_SECRET/JWKS_URL it prints a ready owner token (a
development mode: NODE_ENV=production requires DATABASE_URL and JWT_SECRET or JWKS_URL).
SIGTERM/SIGINT turn /health/ready to 503, serve on for SHUTDOWN_DELAY_MS, stop accepting, and
finish in-flight work (requests, realtime sockets closed with 1001, the running job, mail being
sent) within SHUTDOWN_TIMEOUT_MS (10 s): exit 0, or 1 when the timeout had to cut work short.`;

/** The embedded default's owner: one subject kept in DATA_DIR, so its tokens survive restarts. */
function devOwnerSubject(dataDir: string): string {
  const file = join(dataDir, 'dev-owner');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomUUID(), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * Serves until SIGTERM or SIGINT, then exits the process: a test runs its failed starts in its
 * own process, and what serves in a child process.
 */
export async function serveCommand(io: CommandIo): Promise<void> {
  const config = resolveDevSecret(loadConfig(io.env));
  const pretty = prettyLogs(config.logFormat, config.production, io.stdout.isTTY === true);
  // The process's stdout gets pino's own writer; another stream (a test's) is written to as given.
  const log = createLogger(
    config.logLevel,
    pretty ? prettyDestination(io.stdout) : io.stdout === process.stdout ? undefined : io.stdout,
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
  const { platform, app, devOwner } = await startOn(database, config, log);
  // Once listening: a start builds most of its heap at once, and V8's own growth lets it do so
  // with fewer collections.
  applyHeapPolicy();
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
    `API reference: ${base}${config.docsUi ? '/docs' : '/openapi.json'}`,
  ];
  // The code rides in the fragment: browsers never send it, so no access log or proxy sees it.
  const signInCode = platform.devSignIn?.issue();
  if (signInCode === undefined) lines.push(`Staff console: ${base}/admin`);
  else
    lines.push(
      `Staff console: ${base}/admin/sign-in#code=${signInCode}`,
      '  (signs in once, within 10 minutes; restart for a new link)',
    );
  if (devOwner !== undefined && config.jwtSecret !== undefined) {
    const token = await mintToken(config.jwtSecret, {
      subject: devOwner,
      email: DEV_OWNER_EMAIL,
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
  io.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const outcome = await drainAndStop({
      app,
      drain: platform.drain,
      log,
      delayMs: config.shutdownDelayMs,
      timeoutMs: config.shutdownTimeoutMs,
      closeAfter: [
        ['vacuum', async () => vacuum?.stop()],
        ['kernel', () => platform.stop()],
        ['database', () => database.close()],
      ],
    });
    process.exit(outcome === 'drained' ? 0 : 1);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * The platform and the app on an open database, listening. A start that fails closes the database:
 * the embedded lock is let go, so a caller that goes on in this process (a test, a retry) finds
 * DATA_DIR free.
 */
async function startOn(
  database: Database,
  config: Config,
  log: FastifyBaseLogger,
): Promise<{ platform: Platform; app: FastifyInstance; devOwner: string | undefined }> {
  let platform: Platform | undefined;
  try {
    const devOwner = config.jwtSecretSource === 'generated' ? devOwnerSubject(config.dataDir) : undefined;
    await grantBootstrapOwners(database.db, [...config.bootstrapOwners, ...(devOwner ? [devOwner] : [])]);
    platform = await composePlatform(config, database, log, {
      localPaymentsStateFile: join(config.dataDir, 'local-payments.json'),
      devOwner,
    });
    await platform.start();
    const app = await buildApp(platform);
    try {
      await database.warm();
    } catch (error) {
      // Not a reason to refuse traffic: the pool opens what it lacks when it is needed.
      log.warn({ err: { message: (error as Error).message } }, 'could not open every pooled database session at start');
    }
    await listen(app, config);
    return { platform, app, devOwner };
  } catch (error) {
    await platform?.stop().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}

/** Errors of binding HOST:PORT, by the setting that is wrong. */
const LISTEN_FAILURES: Record<string, (config: Config) => [setting: string, problem: string]> = {
  ENOTFOUND: (config) => ['HOST', `"${config.host}" is not a known host name`],
  EAI_AGAIN: (config) => ['HOST', `"${config.host}" could not be resolved (the name service did not answer)`],
  EADDRNOTAVAIL: (config) => ['HOST', `${config.host} is not an address of this machine`],
  EADDRINUSE: (config) => ['PORT', `${config.port} is already in use on ${config.host}`],
  EACCES: (config) => ['PORT', `${config.port} on ${config.host} needs privileges this process does not have`],
};

/** Listens on HOST:PORT; on failure, the app is closed and the setting at fault is named. */
async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    const named = LISTEN_FAILURES[(error as NodeJS.ErrnoException).code ?? ''];
    if (named === undefined) throw error;
    const [setting, problem] = named(config);
    throw new StartError(setting, `${problem} (${(error as Error).message})`);
  }
}
