import { loadConfig } from '../config.js';
import { migrate } from '../db/migrate.js';
import type { CommandIo } from './command.js';
import { migratePostgres, openEmbedded } from './database.js';

export const MIGRATE_USAGE = `Usage: platform-api migrate

Applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR) and exits.
On PostgreSQL it is safe to run while other instances start: an advisory lock serialises
migrators. The embedded database belongs to one process: refused while a serve holds DATA_DIR.`;

export async function migrateCommand(io: CommandIo): Promise<void> {
  const config = loadConfig(io.env);
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
  io.stdout.write(applied.length === 0 ? 'Database is up to date.\n' : `Applied: ${applied.join(', ')}\n`);
}
