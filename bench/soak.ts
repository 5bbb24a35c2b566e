import { join } from 'node:path';
import { cpus, loadavg, tmpdir } from 'node:os';
import { neighbourPlan, startCpuNeighbour } from './cpu-neighbour.js';
import { parseArgs } from 'node:util';
import { runToCompletion } from './child-process.js';
import { cleanUp, cleanUpOnSignals } from './cleanup.js';
import { makeContext, openDatabase } from './context.js';
import { pinningPlan, pinPostgres, pinProcess } from './cpu-pinning.js';
import { createCpuMeter, mainThreadSchedMs, type CpuMeter, type CpuWindow } from './cpu-usage.js';
import { startDiskProbe } from './disk-probe.js';
import { pressureContrast, startPressureProbe } from './pressure-probe.js';
import { sessionsText, startActivityProbe } from './activity-probe.js';
import { startGeneratorProbe, type GeneratorSecond } from './generator-probe.js';
import { readMemory } from './memory.js';
import { FULL_SIZES } from './options.js';
import { writeResults } from './report.js';
import { expectStatus } from './http-client.js';
import { signInCrowd, type BenchContext } from './scenarios.js';
import { MixDriver, OPEN_LOOP_MAX_SOCKETS, type RequestResult } from './soak-driver.js';
import { soakMix, type MixKind } from './soak-mix.js';
import { climbLadder, DEFAULT_LADDER, ladderTable, type Ladder } from './soak-ladder.js';
import { roundsDuring, startAutovacuumStandIn, type VacuumRound } from './soak-vacuum.js';
import {
  coresOf,
  kindsTable,
  maxRateTable,
  milliseconds,
  minutesTable,
  rssDrift,
  summarizePhase,
  verdict,
  verdictTable,
  MAX_ERROR_RATE,
  MAX_RSS_DRIFT,
  type CpuCores,
  type PhaseRecord,
} from './soak-report.js';
import { percentiles, rssStats, summarize, Tally } from './soak-stats.js';
import {
  alignProbe,
  probeText,
  readProbe,
  slowRequestShares,
  typicalSecond,
  type ServiceSecond,
} from './soak-probe.js';
import { sourceState } from './source-state.js';
import { startService, type RunningService } from './service-process.js';
import { prepareService } from './startup.js';
import { newJwtSecret } from './tokens.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Runs this long or longer are the record (bench/results/); shorter ones are checks (bench/results/quick/). */
const RECORD_MINUTES = 10;
const RSS_SAMPLE_EVERY_MS = 2_000;

interface SoakOptions {
  minutes: number;
  /** The fixed rate as a share of the measured maximum. */
  share: number;
  /** Which maximum the share is of: the highest fixed rate held for a step (sustained), or the closed-loop burst. */
  basis: 'sustained' | 'burst';
  /** Seconds each step of the sustained maximum's ladder lasts. */
  stepSeconds: number;
  /** A fixed rate instead (skips the maximum-rate run). */
  rate: number | undefined;
  /** Closed loop (maximum rate): connections, warm-up and measured seconds. */
  connections: number;
  maxWarmupSeconds: number;
  maxSeconds: number;
  /** At the fixed rate before the first measured minute; not counted. */
  warmupSeconds: number;
  skipBuild: boolean;
  /** Sign the players in all at once, as the bench does (their sightings then fall due together every minute). */
  crowdAtOnce: boolean;
  /**
   * Kinds of request left out of the mix (names containing one of these words): to find which one a problem follows.
   */
  without: string[];
  /** On a PostgreSQL server with autovacuum off, do not stand in for it (measure the server as configured). */
  noVacuum: boolean;
  /** Leave out the pg_stat_activity sampler (to see whether it disturbs the run). */
  noSessions: boolean;
  /** Load bench/service-probe.mjs into the service: its own per-second view beside the generator's. */
  probe: boolean;
  /** Service processes on the one database, each sent every N-th request (a round-robin load balancer). */
  instances: number;
  /** Run the service with `node --cpu-prof` (profile in bench/results/profiles/soak-<time>/). */
  cpuProfile: boolean;
  /** The service alone on the last core; PostgreSQL and the generator on the others (cpu-pinning.ts). */
  pin: boolean;
  /** The service's DATABASE_POOL_SIZE; undefined: its default. */
  poolSize: number | undefined;
  /** Cores a stand-in neighbour burns on average in seeded bursts (cpu-neighbour.ts); undefined: none. */
  neighbourCores: number | undefined;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

const USAGE = `Usage: npm run soak -- [--minutes N] [--share 0.7] [--basis sustained|burst] [--step-seconds 120] [--rate R] [--connections 10] [--max-seconds 20] [--warmup-seconds 30] [--skip-build] [--no-vacuum] [--no-sessions] [--without a,b] [--crowd-at-once] [--probe] [--cpu-prof] [--instances 1] [--pin] [--pool-size N]

  --minutes         measured minutes at the fixed rate (default 10; under ${RECORD_MINUTES}, results go to bench/results/quick/)
  --share           the fixed rate as a share of the measured maximum (default 0.7)
  --basis           which maximum: sustained (default; the highest fixed rate held for a step of the
                    ladder, which climbs from 60 % of the burst in steps of 5 % of it) or burst (the
                    closed-loop run alone, as before the fifth session)
  --step-seconds    seconds each step of the ladder lasts (default ${DEFAULT_LADDER.stepSeconds})
  --rate            a fixed rate in requests per second instead (no maximum-rate run)
  --connections     connections of the closed-loop maximum-rate run (default 10, as the bench)
  --max-seconds     measured seconds of that run (default 20, after 5 s of warm-up)
  --warmup-seconds  seconds at the fixed rate before the first measured minute (default 30)
  --skip-build      use dist/ as it is (noted in the results)
  --no-vacuum       on a PostgreSQL server with autovacuum off, do not vacuum/analyze in its place
  --no-sessions     do not sample the service's sessions in pg_stat_activity (activity-probe.ts) every 100 ms
  --without a,b     leave the requests whose name contains one of these out of the mix (diagnosis)
  --crowd-at-once   sign the 1,000 players in at once (as the bench) instead of over a minute
  --probe           have the service record each second itself (its requests' p99, event-loop delay,
                    GC), shown beside the worst seconds and kept in the results (diagnosis)
  --instances N     run N service processes on the database, each sent every N-th request (default 1)
  --pin             the service alone on the last core, PostgreSQL (the machine's, put back at the end)
                    and this generator on the others: as in production, where the service does not
                    share its cores with its database or its clients (Linux, taskset)
  --pool-size N     the service's DATABASE_POOL_SIZE (pooled connections per instance; default its own, 10)
  --neighbour C     a busy hour on demand: threads beside the soak burn C cores on average, in bursts
                    drawn from a fixed seed (the same bursts at the same seconds in every run), from
                    the maximum-rate run to the end (cpu-neighbour.ts)
  --cpu-prof        run the service with node --cpu-prof; the profile lands in bench/results/profiles/
                    (read it with bench/tools/cpu-profile-summary.ts)

Environment: BENCH_DATABASE_URL (PostgreSQL server; unset: the embedded database), BENCH_REDIS_URL (optional).`;

function readSoakOptions(argv: string[], env: NodeJS.ProcessEnv): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '10' },
      share: { type: 'string', default: '0.7' },
      basis: { type: 'string', default: 'sustained' },
      'step-seconds': { type: 'string', default: String(DEFAULT_LADDER.stepSeconds) },
      rate: { type: 'string' },
      connections: { type: 'string', default: '10' },
      'max-seconds': { type: 'string', default: '20' },
      'warmup-seconds': { type: 'string', default: '30' },
      'skip-build': { type: 'boolean', default: false },
      'no-vacuum': { type: 'boolean', default: false },
      'no-sessions': { type: 'boolean', default: false },
      probe: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      pin: { type: 'boolean', default: false },
      instances: { type: 'string', default: '1' },
      'pool-size': { type: 'string' },
      neighbour: { type: 'string' },
      without: { type: 'string' },
      'crowd-at-once': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, text: string, integer = false) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      throw new Error(`--${name}: expected a positive ${integer ? 'integer' : 'number'}, got ${text}\n\n${USAGE}`);
    return value;
  };
  const share = positive('share', values.share);
  if (share > 1) throw new Error(`--share: at most 1, got ${share}`);
  const basis = values.basis;
  if (basis !== 'sustained' && basis !== 'burst')
    throw new Error(`--basis: sustained or burst, got ${basis}\n\n${USAGE}`);
  return {
    minutes: positive('minutes', values.minutes, true),
    share,
    basis,
    stepSeconds: positive('step-seconds', values['step-seconds'], true),
    rate: values.rate === undefined ? undefined : positive('rate', values.rate),
    connections: positive('connections', values.connections, true),
    maxWarmupSeconds: 5,
    maxSeconds: positive('max-seconds', values['max-seconds']),
    warmupSeconds: positive('warmup-seconds', values['warmup-seconds']),
    skipBuild: values['skip-build'],
    noVacuum: values['no-vacuum'],
    noSessions: values['no-sessions'],
    probe: values.probe,
    cpuProfile: values['cpu-prof'],
    pin: values.pin,
    instances: positive('instances', values.instances, true),
    poolSize: values['pool-size'] === undefined ? undefined : positive('pool-size', values['pool-size'], true),
    neighbourCores: values.neighbour === undefined ? undefined : positive('neighbour', values.neighbour),
    crowdAtOnce: values['crowd-at-once'],
    without:
      values.without === undefined
        ? []
        : values.without
            .split(',')
            .map((word) => word.trim())
            .filter(Boolean),
    databaseUrl: env.BENCH_DATABASE_URL?.trim() || undefined,
    redisUrl: env.BENCH_REDIS_URL?.trim() || undefined,
  };
}

/**
 * The service moves a player's `last_seen_at` and login session's last sighting at most once a
 * minute (src/kernel/principal.ts, LAST_SEEN_RESOLUTION_MS). A crowd signed in all at once (the
 * bench's `signInCrowd`) comes due together: a thousand pairs of writes, and as many principals
 * dropped from the cache, in the same second, every minute from then on. Players arrive over time,
 * so the soak signs them in over a minute, each twice in a row as `signInCrowd` does.
 */
const SIGN_IN_SPREAD_SECONDS = 60;

async function signInOverAMinute(context: BenchContext): Promise<void> {
  const { playerTokens } = context;
  const started = performance.now();
  await Promise.all(
    playerTokens.map(async (token, i) => {
      const at = started + (i * SIGN_IN_SPREAD_SECONDS * 1_000) / playerTokens.length;
      await new Promise((resolve) => setTimeout(resolve, at - performance.now()));
      for (let n = 0; n < 2; n += 1) await expectStatus(context.baseUrl, 200, { path: '/v1/me', token });
    }),
  );
}

const machineText = ({ diskSyncMaxMs, cpuPressurePct, ioPressurePct, stealMs, sessions }: GeneratorSecond) =>
  (diskSyncMaxMs === undefined ? '' : `; disk sync max ${milliseconds(diskSyncMaxMs)}`) +
  (cpuPressurePct === undefined
    ? ''
    : `; waiting for a core ${cpuPressurePct} %, for I/O ${ioPressurePct} %, steal ${stealMs} ms`) +
  (sessions === undefined ? '' : `; database sessions active: ${sessionsText(sessions)}`);
const generatorText = (second: GeneratorSecond | null) =>
  second === null
    ? ''
    : ` [generator: event loop max ${milliseconds(second.loopMaxMs)}, GC ${milliseconds(second.gcMs)}, longest ` +
      `${milliseconds(second.gcMaxMs)}${machineText(second)}]`;

const loadAverageText = (load: number[]) => load.map((n) => n.toFixed(2)).join(' ');

interface MaxRate {
  seconds: number;
  requestsPerSecond: number;
  summary: ReturnType<typeof summarize>;
  cpu: CpuCores;
  serviceCpuWait: number | null;
}

/** Measures the share of wall time the service's event loop spent waiting for a core from now on. */
function cpuWaitFrom(pid: number): () => number | null {
  const start = mainThreadSchedMs(pid);
  const startedAt = performance.now();
  return () => {
    const end = mainThreadSchedMs(pid);
    return start === undefined || end === undefined
      ? null
      : (end.waitMs - start.waitMs) / (performance.now() - startedAt);
  };
}

/** The closed-loop run: as many requests of the mix as `connections` connections get answered. */
async function measureMaxRate(
  driver: MixDriver,
  kinds: MixKind[],
  options: SoakOptions,
  cpu: CpuMeter,
  servicePid: number,
): Promise<MaxRate> {
  log(
    `maximum rate: the mix over ${options.connections} connections, closed loop, ${options.maxWarmupSeconds} s ` +
      `warm-up + ${options.maxSeconds} s…`,
  );
  await driver.closedLoop(options.connections, options.maxWarmupSeconds, () => {});
  const tally = new Tally(kinds);
  const window = await cpu.window();
  const cpuWait = cpuWaitFrom(servicePid);
  const seconds = await driver.closedLoop(options.connections, options.maxSeconds, (result) => tally.add(result));
  const serviceCpuWait = cpuWait();
  const used = await window.end();
  const summary = summarize(kinds, [tally]);
  const never = summary.kinds.filter((kind) => kind.requests - kind.errors === 0);
  if (never.length > 0) {
    throw new Error(
      `the mix is wrong: never the expected status for ` +
        `${never.map((kind) => `${kind.name} (${JSON.stringify(kind.answers)})`).join(', ')}`,
    );
  }
  return {
    seconds,
    requestsPerSecond: tally.expectedAnswers() / seconds,
    summary,
    cpu: coresOf(used, seconds),
    serviceCpuWait,
  };
}

/**
 * The fixed-rate run: the warm-up, then one stretch per minute. Every answer goes to the stretch
 * its request was due in; RSS is sampled every 2 s, CPU and the load average per stretch.
 */
/** One second of the fixed-rate run (by when requests were due): to find periodic stalls. */
interface SecondSummary {
  second: number;
  requests: number;
  errors: number;
  p99Ms: number;
  maxMs: number;
  /** The slowest request's kind. */
  slowest: string;
  /** The same second inside the service (`--probe`). */
  service?: ServiceSecond | null;
  /** The same second in this process, the generator (measured as it ended). */
  generator: GeneratorSecond | null;
}

/** What a second of the run keeps: latencies only (numbers, not results: a soak sees a million or more). */
interface SecondTally {
  latencies: number[];
  errors: number;
  maxMs: number;
  slowestKind: number;
}

function tallySecond(tally: SecondTally, kinds: MixKind[], result: RequestResult): void {
  tally.latencies.push(result.latencyMs);
  if (result.answer !== kinds[result.kind]!.expectedStatus) tally.errors += 1;
  if (result.latencyMs > tally.maxMs) {
    tally.maxMs = result.latencyMs;
    tally.slowestKind = result.kind;
  }
}

function perSecond(
  kinds: MixKind[],
  seconds: SecondTally[],
  generator: (GeneratorSecond | undefined)[],
): SecondSummary[] {
  return seconds.map((tally, second) => ({
    second,
    requests: tally.latencies.length,
    errors: tally.errors,
    p99Ms: Math.round((percentiles(tally.latencies)?.p99Ms ?? 0) * 10) / 10,
    maxMs: Math.round(tally.maxMs * 10) / 10,
    slowest: tally.latencies.length === 0 ? '' : kinds[tally.slowestKind]!.name,
    generator: generator[second] ?? null,
  }));
}

async function soakAtRate(
  driver: MixDriver,
  kinds: MixKind[],
  options: SoakOptions,
  rate: number,
  servicePids: number[],
  cpu: CpuMeter,
  databaseUrl: string | undefined,
): Promise<{ phases: PhaseRecord[]; seconds: SecondSummary[]; originEpochMs: number }> {
  const phases: PhaseRecord[] = [
    {
      label: 'warm-up',
      fromSecond: 0,
      toSecond: options.warmupSeconds,
      tally: new Tally(kinds),
      rssMb: [],
      cpu: null,
      loadAverage: [],
      serviceCpuWait: null,
    },
  ];
  for (let minute = 1; minute <= options.minutes; minute += 1) {
    const fromSecond = options.warmupSeconds + (minute - 1) * 60;
    phases.push({
      label: `minute ${minute}`,
      fromSecond,
      toSecond: fromSecond + 60,
      tally: new Tally(kinds),
      rssMb: [],
      cpu: null,
      loadAverage: [],
      serviceCpuWait: null,
    });
  }
  const totalSeconds = phases[phases.length - 1]!.toSecond;
  const bySecond: SecondTally[] = Array.from({ length: Math.ceil(totalSeconds) }, () => ({
    latencies: [],
    errors: 0,
    maxMs: 0,
    slowestKind: 0,
  }));
  const origin = performance.now();
  const originEpochMs = Date.now();
  const phaseAt = (second: number) => phases.find((phase) => second < phase.toSecond) ?? phases[phases.length - 1]!;

  const sampleRss = () => {
    const second = (performance.now() - origin) / 1_000;
    // Instances' RSS summed: with more than one, the drift is the service's as a whole.
    const readings = servicePids.map(readMemory);
    if (readings.every((reading) => reading !== undefined) && second < totalSeconds) {
      phaseAt(second).rssMb.push(readings.reduce((sum, reading) => sum + reading!.rssMb, 0));
    }
  };
  const rssTimer = setInterval(sampleRss, RSS_SAMPLE_EVERY_MS);
  sampleRss();
  const generatorProbe = startGeneratorProbe();
  // The machine's PostgreSQL keeps its WAL on this machine's disk, as the temporary directory.
  const diskProbe = await startDiskProbe(tmpdir());
  const pressureProbe = startPressureProbe();
  // On PostgreSQL: what the service's sessions were doing (the embedded database runs inside the service).
  const activityProbe =
    databaseUrl === undefined || options.noSessions ? undefined : await startActivityProbe(databaseUrl);
  const generatorSeconds: (GeneratorSecond | undefined)[] = [];
  const generatorTimer = setInterval(() => {
    const second = Math.round((performance.now() - origin) / 1_000) - 1;
    const taken = {
      ...generatorProbe.take(),
      diskSyncMaxMs: diskProbe.take(),
      ...pressureProbe?.take(),
      ...(activityProbe === undefined ? {} : { sessions: activityProbe.take() }),
    };
    if (second >= 0 && second < totalSeconds) generatorSeconds[second] = taken;
  }, 1_000);

  // Each stretch gets a CPU window from its start to its end. Its line is printed a second after
  // its end (answers to its last requests arrive then), or when the load is over; the table at
  // the end has every answer.
  let window: Promise<CpuWindow> = cpu.window();
  // The first instance's: the others share its cores and its lot.
  const servicePid = servicePids[0]!;
  let cpuWait = cpuWaitFrom(servicePid);
  const printed = new Set<PhaseRecord>();
  const printLine = (phase: PhaseRecord) => {
    if (printed.has(phase)) return;
    printed.add(phase);
    const { tally } = phase;
    const rss = rssStats(phase.rssMb);
    log(
      `  ${phase.label.padEnd(9)} ${tally.requests} requests, ${tally.errors} errors, p50 ` +
        `${milliseconds(tally.histogram.quantile(0.5))}, p99 ${milliseconds(tally.histogram.quantile(0.99))}, ` +
        `RSS ${rss?.meanMb.toFixed(0) ?? '?'} MB, load average ${loadAverageText(phase.loadAverage)}`,
    );
  };
  const printTimers: NodeJS.Timeout[] = [];
  const closed = phases.map(
    (phase) =>
      new Promise<void>((resolve, reject) => {
        setTimeout(
          () => {
            const ending = window;
            window = cpu.window();
            phase.serviceCpuWait = cpuWait();
            cpuWait = cpuWaitFrom(servicePid);
            phase.loadAverage = loadavg();
            ending
              .then((w) => w.end())
              .then((used) => {
                phase.cpu = coresOf(used, phase.toSecond - phase.fromSecond);
              })
              .then(resolve, reject);
            printTimers.push(setTimeout(() => printLine(phase), 1_000));
          },
          origin + phase.toSecond * 1_000 - performance.now(),
        );
      }),
  );

  log(
    `fixed rate: ${rate} requests/s, open loop (up to ${OPEN_LOOP_MAX_SOCKETS} connections per instance), ` +
      `${options.warmupSeconds} s warm-up + ${options.minutes} minute(s)…`,
  );
  try {
    await driver.openLoop(
      rate,
      totalSeconds,
      (result) => {
        const second = (result.dueAt - origin) / 1_000;
        phaseAt(second).tally.add(result);
        const tally = bySecond[Math.floor(second)];
        if (tally !== undefined) tallySecond(tally, kinds, result);
      },
      origin,
    );
    // The last answer may come before the last stretch's end: its CPU window and load average still close on time.
    await Promise.all(closed);
  } finally {
    clearInterval(rssTimer);
    clearInterval(generatorTimer);
    generatorProbe.stop();
    await diskProbe.stop();
    await activityProbe?.stop();
  }
  for (const timer of printTimers) clearTimeout(timer);
  for (const phase of phases) printLine(phase);
  await (await window).end();
  return { phases, seconds: perSecond(kinds, bySecond, generatorSeconds), originEpochMs };
}

async function main(): Promise<number> {
  cleanUpOnSignals();
  const options = readSoakOptions(process.argv.slice(2), process.env);
  const started = new Date();
  const loadAverageAtStart = loadavg();
  log(
    `platform-api soak, ${options.minutes} minute(s), ${cpus().length} cores, Node ${process.version}, load ` +
      `average ${loadAverageText(loadAverageAtStart)}`,
  );

  const source = sourceState();
  if (!options.skipBuild) {
    log('building (npm run build)…');
    await runToCompletion('npm run build', 'npm', ['run', 'build']);
  }
  const database = await openDatabase(options.databaseUrl);
  log(
    `database: ` +
      `${database.kind === 'postgres' ? `PostgreSQL (${new URL(database.serviceUrl!).pathname.slice(1)})` : `embedded in ${database.dataDir}`}${options.redisUrl === undefined ? '' : ', Redis counters'}`,
  );
  const jwtSecret = newJwtSecret();
  const probeFile = options.probe ? join(database.dataDir, 'service-probe.jsonl') : undefined;
  const poolSetting = options.poolSize === undefined ? {} : { databasePoolSize: options.poolSize };
  const prepared = await prepareService(
    database,
    {
      dataDir: database.dataDir,
      databaseUrl: database.serviceUrl,
      redisUrl: options.redisUrl,
      jwtSecret,
      ...(probeFile === undefined ? {} : { probeFile }),
      ...poolSetting,
      ...(options.cpuProfile
        ? {
            cpuProfileDir: join(
              import.meta.dirname,
              'results',
              'profiles',
              `soak-${started.toISOString().replace(/:/g, '-')}`,
            ),
          }
        : {}),
    },
    FULL_SIZES,
    log,
  );
  const { service } = prepared;
  const services: RunningService[] = [service];
  for (let n = 1; n < options.instances; n += 1) {
    log(`starting instance ${n + 1} of ${options.instances}…`);
    // The probe and the profile follow the first instance only.
    services.push(
      await startService({
        dataDir: database.dataDir,
        databaseUrl: database.serviceUrl,
        redisUrl: options.redisUrl,
        jwtSecret,
        ...poolSetting,
      }),
    );
  }
  const context = await makeContext(service.baseUrl, FULL_SIZES, jwtSecret);
  const kinds = soakMix(context).filter((kind) => !options.without.some((word) => kind.name.includes(word)));
  if (options.without.length > 0)
    log(
      `the mix without ${options.without.join(', ')}: ` +
        `${kinds.map((kind) => `${kind.name} ×${kind.weight}`).join(', ')}`,
    );
  if (kinds.length === 0) throw new Error('--without left nothing in the mix');
  if (options.crowdAtOnce) {
    log('signing in the 1,000 players at once…');
    await signInCrowd(context);
  } else {
    log(`signing in the 1,000 players over ${SIGN_IN_SPREAD_SECONDS} s…`);
    await signInOverAMinute(context);
  }
  const vacuum =
    database.serviceUrl === undefined
      ? undefined
      : await startAutovacuumStandIn(database.serviceUrl, !options.noVacuum);
  if (vacuum !== undefined && vacuum.serverSetting !== 'on') {
    log(
      vacuum.active
        ? `the server's autovacuum is ${vacuum.serverSetting}: standing in for it (each minute, VACUUM ANALYZE / ` +
            `ANALYZE of the tables past its default thresholds)`
        : `the server's autovacuum is ${vacuum.serverSetting}, and --no-vacuum: dead rows and statistics are left ` +
            `as they come`,
    );
  }

  if (options.pin) {
    const plan = pinningPlan();
    // Instances share the service's cores: the machine's other cores stay PostgreSQL's and the generator's.
    for (const instance of services) pinProcess(instance.pid, plan.serviceCores);
    pinProcess(process.pid, plan.otherCores);
    const postgres =
      database.serviceUrl === undefined ? undefined : await pinPostgres(database.serviceUrl, plan.otherCores);
    log(
      `pinned: the service on core ${plan.serviceCores}; ` +
        `${postgres === undefined ? '' : `PostgreSQL (${postgres.processes} processes) and `}this generator on ` +
        `${plan.otherCores}`,
    );
  }
  const cpu = await createCpuMeter(
    services.map((instance) => instance.pid),
    database.serviceUrl,
  );
  const neighbourSetting =
    options.neighbourCores === undefined ? undefined : neighbourPlan(options.neighbourCores, cpus().length);
  const neighbour = neighbourSetting === undefined ? undefined : startCpuNeighbour(neighbourSetting);
  if (neighbourSetting !== undefined) {
    log(
      `a neighbour burns ${neighbourSetting.cores} cores on average: ${neighbourSetting.threads} threads, busy ` +
        `${neighbourSetting.meanBusyMs} ms / idle ${neighbourSetting.meanIdleMs} ms on average, seed ` +
        `${neighbourSetting.seed}`,
    );
  }
  const driver = new MixDriver(
    services.map((instance) => instance.baseUrl),
    kinds,
  );
  process.once('SIGINT', () => driver.stop());
  process.once('SIGTERM', () => driver.stop());

  const maxRate =
    options.rate === undefined ? await measureMaxRate(driver, kinds, options, cpu, service.pid) : undefined;
  if (maxRate !== undefined) {
    log(maxRateTable(maxRate.summary, maxRate.seconds, maxRate.cpu, maxRate.serviceCpuWait));
    log(`maximum: ${maxRate.requestsPerSecond.toFixed(0)} requests/s with the expected status`);
  }
  let ladder: Ladder | undefined;
  if (maxRate !== undefined && options.basis === 'sustained') {
    ladder = await climbLadder(
      driver,
      kinds,
      maxRate.requestsPerSecond,
      { ...DEFAULT_LADDER, stepSeconds: options.stepSeconds },
      cpu,
      log,
    );
    log(ladderTable(ladder));
    if (ladder.sustainedRequestsPerSecond === null)
      throw new Error('no step of the ladder held: there is no sustained maximum to take a share of');
    log(
      `sustained maximum: ${ladder.sustainedRequestsPerSecond} requests/s ` +
        `(${((ladder.sustainedRequestsPerSecond / maxRate.requestsPerSecond) * 100).toFixed(0)} % of the burst)`,
    );
  }
  const basisRate = ladder?.sustainedRequestsPerSecond ?? maxRate?.requestsPerSecond;
  const rate = options.rate ?? Math.round(options.share * basisRate!);
  const { phases, seconds, originEpochMs } = await soakAtRate(
    driver,
    kinds,
    options,
    rate,
    services.map((instance) => instance.pid),
    cpu,
    database.serviceUrl,
  );
  if (probeFile !== undefined) {
    const serviceSeconds = alignProbe(readProbe(probeFile), originEpochMs, seconds.length);
    seconds.forEach((second, k) => {
      second.service = serviceSeconds[k] ?? null;
    });
  }
  const neighbourCores = await neighbour?.stop();
  if (neighbourCores !== undefined) log(`the neighbour burnt ${neighbourCores.toFixed(2)} cores on average`);
  const vacuumRounds: VacuumRound[] = (await vacuum?.stop()) ?? [];
  await cpu.close();

  const serviceLogLines = services.reduce((sum, instance) => sum + instance.logLines(), 0);
  const serviceLogTail = services
    .map((instance) => instance.logTail())
    .filter(Boolean)
    .join('\n');
  const stopped = await Promise.all(services.map((instance) => instance.stop()));
  const peakRssMb = Math.max(...stopped.map((outcome) => outcome.peakRssMb));

  const summaries = phases.map((phase) => summarizePhase(kinds, phase));
  const minutes = summaries.slice(1);
  const soak = summarize(
    kinds,
    phases.slice(1).map((phase) => phase.tally),
  );
  const drift = rssDrift(minutes);
  const checks = verdict(soak, drift);
  const passed = checks.every((check) => check.met !== false);
  const measuredSeconds = options.minutes * 60;

  log('');
  log(
    minutesTable(
      [
        ...summaries,
        {
          ...soak,
          label: 'soak',
          seconds: measuredSeconds,
          requestsPerSecond: soak.requests / measuredSeconds,
          rss: null,
          cpu: null,
          loadAverage: [],
          serviceCpuWait: null,
        },
      ],
      kinds,
    ),
  );
  log('');
  log(kindsTable(soak, minutes));
  log('');
  log(verdictTable(checks));
  const rateText =
    maxRate === undefined
      ? ' (fixed by --rate)'
      : ladder === undefined
        ? ` (${Math.round(options.share * 100)} % of the burst maximum ${maxRate.requestsPerSecond.toFixed(0)})`
        : ` (${Math.round(options.share * 100)} % of the sustained maximum ${ladder.sustainedRequestsPerSecond}; ` +
          `the burst maximum was ${maxRate.requestsPerSecond.toFixed(0)})`;
  log(
    `\n${passed ? 'PASSED' : 'FAILED'}: ${rate} requests/s${rateText} for ${options.minutes} ` +
      `minute(s)${options.instances > 1 ? ` on ${options.instances} instances` : ''}; peak RSS ` +
      `${peakRssMb.toFixed(0)} MB (VmHWM${options.instances > 1 ? ', the largest instance' : ''})`,
  );
  const worstSeconds = [...seconds].sort((a, b) => b.p99Ms - a.p99Ms).slice(0, 8);
  // A request due in the second was held up by a round that ran before it was answered.
  const vacuumText = (second: SecondSummary) => {
    const from = originEpochMs + second.second * 1_000;
    const during = roundsDuring(vacuumRounds, from, from + 1_000 + second.p99Ms);
    return during.length === 0
      ? ''
      : ` {vacuum round: ${during.flatMap((round) => round.vacuumed).join(', ') || 'analyze only'}}`;
  };
  log(
    `\nworst seconds (p99; since the fixed rate began, the warm-up being the first ${options.warmupSeconds} s): ` +
      worstSeconds
        .map(
          (s) =>
            `${s.second} s ` +
            `${milliseconds(s.p99Ms)}${probeText(s.service)}${generatorText(s.generator)}${vacuumText(s)}`,
        )
        .join(', '),
  );
  const typical = typicalSecond(seconds.slice(options.warmupSeconds));
  if (typical !== null) {
    log(
      `a typical measured second (median of the per-second p99s): ${milliseconds(typical.generatorP99Ms)} at the ` +
        `generator, ${milliseconds(typical.serviceP99Ms)} inside the service`,
    );
  }
  const pressure = pressureContrast(seconds.slice(options.warmupSeconds));
  if (pressure !== null) {
    log(
      `the machine (Linux pressure, medians): a typical second had a task waiting for a core ` +
        `${pressure.typical.cpuPressurePct} % of it and for I/O ${pressure.typical.ioPressurePct} %; the ` +
        `${pressure.slowest.seconds} slowest seconds ${pressure.slowest.cpuPressurePct} % and ` +
        `${pressure.slowest.ioPressurePct} %`,
    );
  }
  const slowRequests = slowRequestShares(seconds.slice(options.warmupSeconds));
  if (slowRequests !== null) {
    const percent = (share: number) => `${(share * 100).toFixed(share < 0.01 ? 2 : 0)} %`;
    log(
      `requests over 20 ms inside the service: ${slowRequests.count} of ${slowRequests.requests} ` +
        `(${percent(slowRequests.count / Math.max(1, slowRequests.requests))}); their time went to pool wait ` +
        `${percent(slowRequests.poolWait)}, queries ${percent(slowRequests.queries)}, the rest ` +
        `${percent(slowRequests.rest)}`,
    );
  }
  if (vacuum?.active) {
    const seconds = vacuumRounds.reduce((sum, round) => sum + round.seconds, 0);
    const tables = [...new Set(vacuumRounds.flatMap((round) => round.vacuumed))];
    log(
      `autovacuum stand-in: ${vacuumRounds.length} rounds, ${seconds.toFixed(1)} s in all; vacuumed ` +
        `${tables.join(', ') || 'nothing'}`,
    );
  }
  if (serviceLogLines > 0)
    log(`\nThe service logged ${serviceLogLines} line(s) at warn or above; the last ones:\n${serviceLogTail}`);

  const file = writeResults(
    {
      date: started.toISOString(),
      source,
      built: !options.skipBuild,
      database: database.kind,
      redis: options.redisUrl !== undefined,
      autovacuum:
        vacuum === undefined ? null : { server: vacuum.serverSetting, standIn: vacuum.active, rounds: vacuumRounds },
      node: process.version,
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      loadAverageAtStart,
      loadAverageAtEnd: loadavg(),
      sizes: FULL_SIZES,
      seedSeconds: prepared.seedSeconds,
      startups: prepared.startups,
      mix: kinds.map(({ name, weight, expectedStatus, maxP99Ms }) => ({
        name,
        weight,
        expectedStatus,
        ...(maxP99Ms === undefined ? {} : { maxP99Ms }),
      })),
      settings: {
        without: options.without,
        crowdAtOnce: options.crowdAtOnce,
        probe: options.probe,
        instances: options.instances,
        poolSize: options.poolSize ?? null,
        neighbour: neighbourSetting === undefined ? null : { ...neighbourSetting, measuredCores: neighbourCores },
        sessions: !options.noSessions,
        pin: options.pin ? pinningPlan() : null,
        share: options.share,
        basis: options.rate === undefined ? options.basis : 'rate',
        rate,
        minutes: options.minutes,
        warmupSeconds: options.warmupSeconds,
        rssSampleEveryMs: RSS_SAMPLE_EVERY_MS,
        closedLoop: {
          connections: options.connections,
          warmupSeconds: options.maxWarmupSeconds,
          seconds: options.maxSeconds,
        },
        openLoopMaxConnections: OPEN_LOOP_MAX_SOCKETS,
        bounds: { maxErrorRate: MAX_ERROR_RATE, maxRssDrift: MAX_RSS_DRIFT },
      },
      maxRate: maxRate ?? null,
      ladder: ladder ?? null,
      phases: summaries,
      seconds,
      rssSamplesMb: phases.map((phase) => ({
        label: phase.label,
        samples: phase.rssMb.map((mb) => Math.round(mb * 10) / 10),
      })),
      soak,
      rssDrift: drift,
      typicalSecond: typical,
      slowRequests,
      verdict: { passed, checks },
      peakRssMb,
      serviceLogLines,
      serviceLogTail: serviceLogLines > 0 ? serviceLogTail : '',
    },
    database.kind,
    options.minutes < RECORD_MINUTES,
    started,
    'soak-',
  );
  log(`\nwritten to ${file}`);
  return passed ? 0 : 1;
}

main()
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanUp();
    process.exit(1);
  });
