import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createLogger } from '../kernel/http/logging.js';
import { composePlatform } from '../composition/compose.js';
import type { CommandIo } from './command.js';
import { withDatabase } from './database.js';
import { CommandFailure, UsageError } from './errors.js';
import { Progress } from './progress.js';
import type { Tally } from './seed/context.js';
import { DEMO_PLAYER_COUNT, DEMO_SEED_STEPS, seedDemo } from './seed/demo.js';
import { DEMO_STAFF } from './seed/people.js';
import { operatorActor } from './services.js';
import { table } from './table.js';

export const SEED_USAGE = `Usage: platform-api seed --demo [--force]

Writes a demo data set through the service's own areas, so a first look at the API (or a
console) shows a living platform: ${DEMO_STAFF.length} staff members with varied roles, ${DEMO_PLAYER_COUNT} players with
tiers, credits and past sessions, 20 store games with genres, developers and publishers,
achievements, published site settings, pages, content blocks and announcements, plan tiers,
products and (on the local payment provider) subscriptions and pack purchases, an email
audience with a sent campaign (delivered at once on the outbox transport), support tickets,
and the audit history of all of it. Idempotent: every item has a stable key (fixed ids and
emails at example.com, slugs, names) and is made only when missing; a second run changes
nothing and says so. Runtime pools are made only at a runtime service (RUNTIME_URL): the
embedded simulator keeps its fleet in memory. Demo staff (sign in with "platform-api token
--sub <id> --email <email>"):
${table(
  ['ROLE', 'EMAIL', 'ID'],
  DEMO_STAFF.map((staff) => [staff.role, staff.email, staff.id]),
  '  ',
).trimEnd()}
Pending migrations are applied first, and said so on stderr: on a fresh DATA_DIR it is the only
command needed. Refused when NODE_ENV=production unless --force: demo players and owners do not belong in a
live deployment. Exits 0 when the data set is there; 1 otherwise.`;

/** One line per kind: made now, found already there, or why this configuration has none. */
function report(tally: Tally): string {
  const rows = tally
    .entries()
    .map(({ kind, created, existing, skipped }) => [
      kind,
      String(created),
      String(existing),
      skipped === undefined ? '' : `skipped: ${skipped}`,
    ]);
  const summary =
    tally.totalCreated === 0
      ? 'The demo data set was already there: nothing changed.'
      : `Demo data set written: ${tally.totalCreated} items made.`;
  return `${summary}\n\n${table(['KIND', 'MADE', 'ALREADY THERE', ''], rows, '  ')}`;
}

export async function seedCommand(args: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { demo: { type: 'boolean', default: false }, force: { type: 'boolean', default: false } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, SEED_USAGE);
  if (!values.demo) throw new UsageError('say which data set: --demo (the only one)', SEED_USAGE);
  const config = loadConfig(io.env);
  if (config.production && !values.force)
    throw new CommandFailure(
      'refused: NODE_ENV=production. Demo players and owners do not belong in a live deployment; ' +
        'add --force if this really is a demo instance',
    );
  const log = createLogger(config.logLevel);
  const progress = new Progress(io.stderr, 'seed --demo', { total: DEMO_SEED_STEPS });
  const tally = await withDatabase(
    config,
    'seed --demo',
    async (database) => {
      const platform = await composePlatform(config, database, log, {
        localPaymentsStateFile: join(config.dataDir, 'local-payments.json'),
      });
      await platform.start();
      try {
        return await seedDemo(platform, {
          userAgent: operatorActor('seed --demo').userAgent!,
          onStepDone: () => progress.add(1),
        });
      } finally {
        await platform.stop();
      }
    },
    {
      // A newcomer's first command may be this one: the schema is brought up to date first.
      pending: 'apply',
      onApplied: (applied) =>
        io.stderr.write(
          `seed --demo: applied ${applied.length} pending migration${applied.length === 1 ? '' : 's'} first ` +
            `(${applied[0]}${applied.length > 1 ? ', …' : ''})\n`,
        ),
      // The kernel's writes, its change listener and the checkout's reads may each want a connection.
      poolMax: 4,
    },
  );
  progress.done('steps');
  io.stdout.write(report(tally));
}
