/**
 * Writes the OpenAPI document the service serves to openapi.json (the committed contract the SDK is
 * built from) and the SDK's sources generated from it (scripts/sdk-sources.ts); `--check` only
 * compares and exits 1 when any differs. The document depends on the routes alone, so an empty
 * in-memory database serves it.
 */
import { PGlite } from '@electric-sql/pglite';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { pgliteParsers, wrapPGlite } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { composePlatform } from '../src/composition/compose.js';
import { committedSdkSources, sdkSources, writeSdkSources } from './sdk-sources.js';

const DOCUMENT_FILE = join(import.meta.dirname, '..', 'openapi.json');

/** The committed file's exact text for a document: two-space JSON and a final newline. */
const documentText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

async function servedDocument(): Promise<unknown> {
  const database = wrapPGlite(await PGlite.create({ parsers: pgliteParsers }));
  await migrate(database.db);
  const config = loadConfig({ JWT_SECRET: 'openapi-document-only-secret-0123456789', SCHEDULED_JOBS: 'off' });
  const kernel = await composePlatform(config, database, pino({ level: 'silent' }));
  await kernel.start();
  const app = await buildApp(kernel, { logger: false });
  try {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    return response.json();
  } finally {
    await app.close();
    await kernel.stop();
    await database.close();
  }
}

const document = await servedDocument();
const text = documentText(document);
if (process.argv.includes('--check')) {
  const committed = readFileSync(DOCUMENT_FILE, 'utf8');
  if (committed !== text) {
    console.error('openapi.json differs from the document the routes serve: run `npm run openapi` and commit it.');
    process.exit(1);
  }
  const fresh = await sdkSources(document);
  const stale = Object.entries(committedSdkSources()).filter(
    ([name, source]) => fresh[name as keyof typeof fresh] !== source,
  );
  if (stale.length > 0) {
    console.error(
      `sdk/src (${stale.map(([name]) => name).join(', ')}) differs: run \`npm run openapi\` and commit it.`,
    );
    process.exit(1);
  }
  console.log('openapi.json and the SDK sources match the routes.');
} else {
  writeFileSync(DOCUMENT_FILE, text);
  console.log(`wrote ${DOCUMENT_FILE} (${text.length} bytes)`);
  await writeSdkSources(document);
  console.log('wrote sdk/src/schema.d.ts and sdk/src/operations.ts');
}
