import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { vacuumAsAutovacuumWould } from './autovacuum-stand-in.js';
import { BULK_OPERATIONS, measureBulkOperation } from './bulk-operations.js';
import { runToCompletion } from './child-process.js';
import { cleanUp, cleanUpOnSignals } from './cleanup.js';
import { makeContext, openDatabase } from './context.js';
import { createCpuMeter, type CpuMeter } from './cpu-usage.js';
import { checkFloorSql, floorSqlRow, type FloorSqlCheck } from './floor-sql-check.js';
import { floorName, startFloors } from './floors.js';
import { prepareLoad, type LoadResult, type LoadSettings } from './load.js';
import { measureWarm } from './measure.js';
import {
  measureScaleOut,
  SCALE_OUT_SCENARIOS,
  scaleOutRow,
  startExtraInstances,
  type ScaleOutOutcome,
} from './instances.js';
import { readOptions, selected } from './options.js';
import {
  bulkRow,
  floorRow,
  peakRssRow,
  printTable,
  scenarioRow,
  startupRow,
  writeResults,
  type BulkOutcome,
  type Row,
  type ScenarioOutcome,
} from './report.js';
import { sourceState } from './source-state.js';
import { measureTracingCost, TRACING_COST_NAME, tracingCostRows, type TracingCostOutcome } from './tracing-cost.js';
import { SCENARIOS, type BenchContext, type Scenario } from './scenarios.js';
import {
  measureUploadAtBound,
  UPLOADS_AT_BOUND,
  uploadAtBoundRow,
  type UploadAtBoundOutcome,
} from './upload-at-bound.js';
import type { RunningService, ServiceSettings } from './service-process.js';
import { prepareService } from './startup.js';
import { newJwtSecret } from './tokens.js';
import { wrkAvailable } from './wrk.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Every answer must carry the scenario's status; a single other one means it measured something else. */
function statusProblem(scenario: Scenario, result: LoadResult): string | null {
  const wrong = Object.entries(result.statuses).filter(([code]) => code !== String(scenario.expectedStatus));
  if (result.total === 0) return 'no answers at all';
  return wrong.length === 0
    ? null
    : `expected only ${scenario.expectedStatus}, got ${wrong.map(([code, count]) => `${code}×${count}`).join(' ')}`;
}

async function runScenario(
  scenario: Scenario,
  context: BenchContext,
  service: RunningService,
  cpu: CpuMeter,
  settings: LoadSettings,
): Promise<ScenarioOutcome> {
  await scenario.before?.(context, settings);
  try {
    const measured = await measureWarm(
      prepareLoad(context.baseUrl, scenario.request(context), settings),
      cpu,
      service.memory,
    );
    return {
      name: scenario.name,
      expectedStatus: scenario.expectedStatus,
      floor: scenario.floor,
      minRatio: scenario.minRatio,
      ...measured,
      problem: statusProblem(scenario, measured.result),
    };
  } finally {
    await scenario.after?.(context);
  }
}

async function main(): Promise<number> {
  cleanUpOnSignals();
  const options = readOptions(process.argv.slice(2), process.env);
  const started = new Date();
  const loadAverageAtStart = loadavg();
  const loadSettings: LoadSettings = {
    generator: wrkAvailable() ? 'wrk' : 'autocannon',
    connections: options.connections,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
  };
  log(
    `platform-api bench (${options.quick ? 'quick' : 'full'}), ${cpus().length} cores, Node ${process.version}, ` +
      `load average ${loadAverageAtStart.map((n) => n.toFixed(2)).join(' ')}`,
  );

  if (options.nodeOptions.length > 0) log(`the service runs with node ${options.nodeOptions.join(' ')}`);
  if (loadSettings.generator === 'autocannon')
    log(
      'note: wrk is not installed (apt-get install wrk); autocannon drives the load, and on the cheap routes its ' +
        'own CPU (the gen column) may be what limits the rate',
    );

  // Others may commit while a run goes on: the numbers belong to what was built, so note it now.
  const source = sourceState();
  if (!options.skipBuild) {
    log('building (npm run build)…');
    await runToCompletion('npm run build', 'npm', ['run', 'build']);
  }

  const database = await openDatabase(options.databaseUrl);
  log(
    `database: ` +
      `${database.kind === 'postgres' ? `PostgreSQL (${new URL(database.serviceUrl!).pathname.slice(1)})` : `embedded in ${database.dataDir}`}`,
  );
  const jwtSecret = newJwtSecret();
  const profileDir = options.cpuProfile
    ? join(import.meta.dirname, 'results', 'profiles', started.toISOString().replace(/:/g, '-'))
    : undefined;
  const serviceSettings: ServiceSettings = {
    dataDir: database.dataDir,
    databaseUrl: database.serviceUrl,
    redisUrl: options.redisUrl,
    jwtSecret,
    nodeOptions: options.nodeOptions,
  };
  const prepared = await prepareService(
    database,
    { ...serviceSettings, ...(profileDir === undefined ? {} : { cpuProfileDir: profileDir }) },
    options.sizes,
    log,
  );
  const { service } = prepared;
  const context = await makeContext(service.baseUrl, options.sizes, jwtSecret);

  const scenarios = SCENARIOS.filter((s) => selected(options, s.name));
  let floorSql: FloorSqlCheck | undefined;
  if (database.serviceUrl !== undefined && scenarios.some((scenario) => scenario.floor !== 'fastify')) {
    log('capturing the statements the service sends (statement log) to check the same-work floors…');
    floorSql = await checkFloorSql(database.serviceUrl, serviceSettings, context);
    if (floorSql.error === undefined)
      for (const route of floorSql.differing)
        log(
          `\nfloor SQL differs for ${route}; the service now sends (put this in bench/floor-statements.ts):\n` +
            (floorSql.captured[route] ?? [])
              .map(
                (statement) =>
                  `${statement.name === undefined ? '' : `-- named ${statement.name}\n`}${statement.sql}\n  -- ${statement.parameters ?? ''}`,
              )
              .join('\n'),
        );
  }

  const floors = await startFloors(database.serviceUrl, scenarios, context, loadSettings, log);
  log(
    `floors (each in its own process): node:http, bare Fastify` +
      `${database.kind === 'postgres' ? ', same-work node:http + pg' : ' (the same-work floors need PostgreSQL)'}; ` +
      `${loadSettings.generator}, ${loadSettings.connections} connections, ` +
      `${loadSettings.warmupSeconds} s warm-up + ${loadSettings.durationSeconds} s each…`,
  );
  const floorsBefore = await floors.measure();

  // This server has no autovacuum: between phases, what it would have done by then (autovacuum-stand-in.ts).
  const vacuumBetweenPhases = async () => {
    if (database.serviceUrl === undefined) return;
    const done = await vacuumAsAutovacuumWould(database.serviceUrl);
    if (done.length > 0) log(`    (as autovacuum would: ${done.join(', ')})`);
  };
  const cpu = await createCpuMeter(service.pid, database.serviceUrl);
  const outcomes: ScenarioOutcome[] = [];
  for (const scenario of scenarios) {
    await vacuumBetweenPhases();
    log(`  ${scenario.name}…`);
    outcomes.push(await runScenario(scenario, context, service, cpu, loadSettings));
  }
  await vacuumBetweenPhases();
  // Measured again after the scenarios: the machine is shared, so its capacity drifts; ratios use the mean.
  const floorsAfter = await floors.measure();
  await floors.stop();

  const scaledOut: ScaleOutOutcome[] = [];
  const scaleOutScenarios = outcomes.filter((outcome) =>
    (SCALE_OUT_SCENARIOS as readonly string[]).includes(outcome.name),
  );
  if (options.instances > 1 && scaleOutScenarios.length > 0) {
    log(
      `scale-out: ${options.instances} instances on the one database, ${loadSettings.connections} connections shared…`,
    );
    const extra = await startExtraInstances(serviceSettings, options.instances);
    try {
      for (const single of scaleOutScenarios) {
        log(`  ${single.name} on ${options.instances} instances…`);
        const scenario = scenarios.find((each) => each.name === single.name)!;
        scaledOut.push(
          await measureScaleOut(scenario, single, context, [service, ...extra], database.serviceUrl, loadSettings),
        );
      }
    } finally {
      for (const instance of extra) await instance.stop();
    }
  }
  const meanRps = (name: string) => {
    const runs = [floorsBefore.get(name), floorsAfter.get(name)];
    if (runs.some((run) => run === undefined)) return null;
    return runs.reduce((sum, run) => sum + run!.result.requestsPerSecond, 0) / runs.length;
  };
  const nodeHttpRps = meanRps('node:http')!;

  const bulk: BulkOutcome[] = [];
  for (const operation of BULK_OPERATIONS.filter((o) => selected(options, o.name))) {
    log(`  ${operation.name}…`);
    bulk.push(await measureBulkOperation(operation, context, cpu, service.memory, options.bulkRepeats));
  }
  const uploads: UploadAtBoundOutcome[] = [];
  for (const upload of UPLOADS_AT_BOUND.filter((p) => selected(options, p.name))) {
    log(`  /health during ${upload.name}…`);
    uploads.push(await measureUploadAtBound(upload, context, cpu, service.memory, service.pid));
  }
  await cpu.close();

  const serviceLogLines = service.logLines();
  const serviceLogTail = service.logTail();
  const { peakRssMb: servicePeak } = await service.stop();
  const peakRssMb = Math.max(servicePeak, prepared.earlierPeakRssMb);

  let tracingCost: TracingCostOutcome | undefined;
  if (selected(options, TRACING_COST_NAME)) {
    log(`  ${TRACING_COST_NAME} (a fresh instance each)…`);
    tracingCost = await measureTracingCost(serviceSettings, context, loadSettings);
  }

  const rows: Row[] = [
    ...floors.names.flatMap((name) => [
      floorRow(floorsBefore.get(name)!, `floor: ${name} (before)`, floors.expectedStatus.get(name)),
      floorRow(floorsAfter.get(name)!, `floor: ${name} (after)`, floors.expectedStatus.get(name)),
    ]),
    ...outcomes.map((outcome) => scenarioRow(outcome, meanRps(floorName(outcome.floor)), nodeHttpRps)),
    ...scaledOut.map(scaleOutRow),
    ...bulk.map(bulkRow),
    ...uploads.map(uploadAtBoundRow),
    ...prepared.startups.map(startupRow),
    peakRssRow(peakRssMb),
    ...(tracingCost === undefined ? [] : tracingCostRows(tracingCost)),
    ...(floorSql === undefined ? [] : [floorSqlRow(floorSql)]),
  ];
  log('');
  printTable(rows, log);
  if (serviceLogLines > 0)
    log(`\nThe service logged ${serviceLogLines} line(s) at warn or above; the last ones:\n${serviceLogTail}`);
  if (options.quick)
    log('\n(--quick: a second per scenario on a tenth of the data; the numbers prove the bench runs, nothing more.)');

  const failures = rows.filter((row) => row.met === 'FAILED');
  if (options.only.length === 0) {
    const file = writeResults(
      {
        date: started.toISOString(),
        source,
        mode: options.quick ? 'quick' : 'full',
        database: database.kind,
        redis: options.redisUrl !== undefined,
        node: process.version,
        nodeOptions: options.nodeOptions,
        cores: cpus().length,
        cpu: cpus()[0]?.model ?? 'unknown',
        loadAverageAtStart,
        loadAverageAtEnd: loadavg(),
        load: loadSettings,
        bulkRepeats: options.bulkRepeats,
        sizes: options.sizes,
        seedSeconds: prepared.seedSeconds,
        generator: loadSettings.generator,
        floors: Object.fromEntries(
          floors.names.map((name) => [
            name,
            { before: floorsBefore.get(name), after: floorsAfter.get(name), meanRequestsPerSecond: meanRps(name) },
          ]),
        ),
        ...(floorSql === undefined ? {} : { floorSql }),
        scenarios: outcomes,
        bulkOperations: bulk,
        uploadsAtBound: uploads,
        startups: prepared.startups,
        peakRssMb,
        ...(tracingCost === undefined ? {} : { tracingCost }),
        serviceLogLines,
        rows,
      },
      database.kind,
      options.quick,
      started,
    );
    log(`\nwritten to ${file}`);
  }
  if (failures.length > 0) {
    log(
      `\n${failures.length} scenario(s) could not be measured: ` +
        `${failures.map((row) => `${row.scenario} (${row.statuses})`).join('; ')}`,
    );
    return 1;
  }
  return 0;
}

main()
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanUp();
    process.exit(1);
  });
