import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { migrationStatus, type MigrationStatus } from '../db/migrate.js';
import type { CommandGroup, CommandIo } from './command.js';
import { withDatabase } from './database.js';

export const DB_STATUS_USAGE = `Usage: platform-api db status [--json]

Lists the migrations applied to DATABASE_URL (or the embedded database in DATA_DIR), with when,
and those pending, in the order "migrate" would apply them. Reads only: nothing is applied or
created (a DATA_DIR without an embedded database is reported, exit 1). Flags a migration whose file changed after it was applied (migrate refuses to go on)
and one recorded by a newer release. The embedded database is refused while a serve holds
DATA_DIR. Exits 0 once read, pending migrations or not; 1 if the database cannot be read.
--json prints { applied: [{ name, applied_at, changed }], pending: [name], unknown: [{ name, applied_at }] }.`;

function asJson(status: MigrationStatus) {
  return {
    applied: status.applied.map((m) => ({
      name: m.name,
      applied_at: m.appliedAt.toISOString(),
      changed: !m.unchanged,
    })),
    pending: status.pending.map((m) => m.name),
    unknown: status.unknown.map((m) => ({ name: m.name, applied_at: m.appliedAt.toISOString() })),
  };
}

function asText(status: MigrationStatus): string {
  const lines = [`Applied: ${status.applied.length}`];
  for (const m of status.applied) {
    lines.push(`  ${m.name}  ${m.appliedAt.toISOString()}${m.unchanged ? '' : '  CHANGED since applied'}`);
  }
  lines.push(`Pending: ${status.pending.length}`);
  for (const m of status.pending) lines.push(`  ${m.name}`);
  if (status.unknown.length > 0) {
    lines.push(`Applied by a newer release (no file here): ${status.unknown.length}`);
    for (const m of status.unknown) lines.push(`  ${m.name}  ${m.appliedAt.toISOString()}`);
  }
  const changed = status.applied.filter((m) => !m.unchanged).length;
  if (changed > 0) lines.push('', `${changed} applied migration file(s) changed: migrate will refuse to run.`);
  else if (status.pending.length > 0)
    lines.push('', 'Run "platform-api migrate" (or start serve) to apply the pending ones.');
  else lines.push('', 'Database is up to date.');
  return `${lines.join('\n')}\n`;
}

export async function dbStatusCommand(args: string[], io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const config = loadConfig(io.env);
  const status = await withDatabase(config, 'db status', (database) => migrationStatus(database.db), {
    readOnly: true,
    pending: 'read',
  });
  io.stdout.write(values.json ? `${JSON.stringify(asJson(status), null, 2)}\n` : asText(status));
}

export const DB: CommandGroup = {
  summary: 'The database schema',
  subcommands: {
    status: { summary: 'applied and pending migrations', usage: DB_STATUS_USAGE, run: dbStatusCommand },
  },
};
