/**
 * CPU per request of the staff users list (25 rows, ~8 KB) sent plain, brotli and gzip, in one
 * process through `inject` (no network, an in-memory database): what encoding adds to an answer,
 * read as a ratio within one run. `npx tsx bench/tools/compression-cpu.ts [requests]`.
 */
import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { composePlatform } from '../../src/composition/compose.js';
import { loadConfig } from '../../src/config.js';
import { pgliteParsers, wrapPGlite } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { writeRoleGrantFixture } from '../../src/modules/roles/index.js';
import { writeUserFixtures } from '../../src/modules/users/index.js';
import { signToken, TEST_JWT_SECRET } from '../../test/helpers/tokens.js';

const REQUESTS = Number(process.argv[2] ?? 1_000);
const database = wrapPGlite(await PGlite.create({ parsers: pgliteParsers }));
await migrate(database.db);
const config = loadConfig({ JWT_SECRET: TEST_JWT_SECRET, SCHEDULED_JOBS: 'off', INCIDENT_MONITOR: 'off' });
const platform = await composePlatform(config, database, pino({ level: 'silent' }));
await platform.start();
const app = await buildApp(platform, { logger: false });
try {
  const staffId = randomUUID();
  const players = Array.from({ length: 25 }, (_, i) => ({ id: randomUUID(), email: `player-${i}@example.test` }));
  await writeUserFixtures(database.db, [{ id: staffId, email: 'staff@example.test' }, ...players]);
  await writeRoleGrantFixture(database.db, {
    userId: staffId,
    key: 'bench',
    name: 'Bench',
    permissions: ['users.read'],
  });
  const token = await signToken({ sub: staffId, email: 'staff@example.test' });
  const list = (encoding?: string) =>
    app.inject({
      method: 'GET',
      url: '/v1/admin/users?page=1&per_page=25',
      headers: { authorization: `Bearer ${token}`, ...(encoding ? { 'accept-encoding': encoding } : {}) },
    });
  const rows: string[] = [];
  for (const round of [1, 2]) {
    for (const encoding of [undefined, 'br', 'gzip']) {
      for (let i = 0; i < 100; i++) await list(encoding);
      const bytes = (await list(encoding)).rawPayload.length;
      const start = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) await list(encoding);
      const used = process.cpuUsage(start);
      const perRequestMs = (used.user + used.system) / 1_000 / REQUESTS;
      if (round === 2)
        rows.push(
          `${(encoding ?? 'identity').padEnd(8)} ${String(bytes).padStart(6)} B  ${perRequestMs.toFixed(3)} ms CPU/request`,
        );
    }
  }
  console.log(rows.join('\n'));
} finally {
  await app.close();
  await platform.stop();
  await database.close();
}
