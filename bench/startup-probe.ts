import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runToCompletion } from './child-process.js';
import { cleanUp, cleanUpOnSignals } from './cleanup.js';
import { openDatabase } from './context.js';
import { productionEnv, startService, type ServiceSettings } from './service-process.js';
import { newJwtSecret } from './tokens.js';

const USAGE = `Usage: tsx bench/startup-probe.ts [--repeat N] [--cpu-prof DIR] [--node-option OPT]…
Starts the built service (dist/, run \`npm run build\` first) N times (default 7) on a migrated
database and prints, for each start and as medians, the wall time and the CPU time (user + system,
from /proc) the process had used at its first 200 on /health. On a shared machine the CPU time is
the figure to compare; the wall time says how loaded the machine was.
Environment: BENCH_DATABASE_URL (a PostgreSQL server, a fresh database is made there and dropped);
unset: the embedded database in a temp DATA_DIR (its first start migrates and is not counted).`;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The start-up half of the bench alone, repeated: what a change to the start costs or saves,
 * without seeding or load (bench/startup.ts times one start inside a full run).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repeat: { type: 'string', default: '7' },
      'cpu-prof': { type: 'string' },
      'node-option': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat must be a positive integer\n\n${USAGE}`);
  const database = await openDatabase(process.env.BENCH_DATABASE_URL?.trim() || undefined);
  const settings: ServiceSettings = {
    dataDir: database.dataDir,
    databaseUrl: database.serviceUrl,
    redisUrl: undefined,
    jwtSecret: newJwtSecret(),
    ...(values['node-option'] === undefined ? {} : { nodeOptions: values['node-option'] }),
  };
  if (database.kind === 'postgres') {
    await runToCompletion(
      'migrate',
      process.execPath,
      [join(import.meta.dirname, '..', 'dist', 'main.js'), 'migrate'],
      productionEnv(settings, 0),
    );
  } else {
    await (await startService(settings)).stop();
  }
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let run = 1; run <= repeat; run += 1) {
    const profileDir = values['cpu-prof'] === undefined ? undefined : join(values['cpu-prof'], `start-${run}`);
    if (profileDir !== undefined) rmSync(profileDir, { recursive: true, force: true });
    const service = await startService({
      ...settings,
      ...(profileDir === undefined ? {} : { cpuProfileDir: profileDir }),
    });
    await service.stop();
    walls.push(service.startupMs);
    cpus.push(service.startupCpuMs);
    process.stdout.write(
      `start ${run}: ${service.startupMs.toFixed(0)} ms wall, ${service.startupCpuMs.toFixed(0)} ms CPU\n`,
    );
  }
  process.stdout.write(
    `${database.kind}: median of ${repeat} starts: ${median(walls).toFixed(0)} ms wall, ${median(cpus).toFixed(0)} ms CPU\n`,
  );
}

cleanUpOnSignals();
try {
  await main();
} finally {
  await cleanUp();
}
