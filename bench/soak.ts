import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { runToCompletion } from './child-process.js';
import { cleanUp, cleanUpOnSignals } from './cleanup.js';
import { makeContext, openDatabase } from './context.js';
import { createCpuMeter, type CpuMeter, type CpuWindow } from './cpu-usage.js';
import { readMemory } from './memory.js';
import { FULL_SIZES } from './options.js';
import { writeResults } from './report.js';
import { expectStatus } from './http-client.js';
import type { BenchContext } from './scenarios.js';
import { MixDriver, OPEN_LOOP_MAX_SOCKETS } from './soak-driver.js';
import { soakMix, type MixKind } from './soak-mix.js';
import { climbLadder, DEFAULT_LADDER, ladderTable, type Ladder } from './soak-ladder.js';
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
  type Check,
  type CpuCores,
  type PhaseRecord,
} from './soak-report.js';
import { rssStats, summarize, Tally } from './soak-stats.js';
import { sourceState } from './source-state.js';
import { analyzeDatabase, genericPlanHolds, GENERIC_PLAN_BOUND, readPlans, type PlanReading } from './plan-check.js';
import { startService, type RunningService } from './service-process.js';
import { prepareService } from './startup.js';
import { newJwtSecret } from './tokens.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Runs this long or longer count as soaks (bench/results/; their figures go to bench/README.md); shorter ones are checks (bench/results/quick/). */
const RECORD_MINUTES = 10;
const RSS_SAMPLE_EVERY_MS = 2_000;

interface SoakOptions {
  minutes: number;
  /** The fixed rate as a share of the measured maximum. */
  share: number;
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
  /** Service processes on the one database, each sent every N-th request (a round-robin load balancer). */
  instances: number;
  /** Run the service with `node --cpu-prof` (profile in bench/results/profiles/soak-<time>/). */
  cpuProfile: boolean;
  /** PostgreSQL: ANALYZE the database after this measured minute, the lists' plans and latency checked around it; undefined: none. */
  analyzeAfterMinute: number | undefined;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

const USAGE = `Usage: npm run soak -- [--minutes 10] [--share 0.7] [--step-seconds 120] [--rate R] [--connections 10] [--max-seconds 20] [--warmup-seconds 30] [--instances 1] [--analyze-after-minute M] [--skip-build] [--cpu-prof]

  --minutes         measured minutes at the fixed rate (default 10; under ${RECORD_MINUTES}, results go to bench/results/quick/)
  --share           the fixed rate as a share of the sustained maximum (default 0.7)
  --step-seconds    seconds each step of the ladder that finds the sustained maximum lasts (default ${DEFAULT_LADDER.stepSeconds})
  --rate            a fixed rate in requests per second instead (no maximum-rate run, no ladder)
  --connections     connections of the closed-loop burst the ladder starts from (default 10, as the bench)
  --max-seconds     measured seconds of that burst (default 20, after 5 s of warm-up)
  --warmup-seconds  seconds at the fixed rate before the first measured minute (default 30)
  --instances N     run N service processes on the database, each sent every N-th request (default 1)
  --analyze-after-minute M
                    PostgreSQL: ANALYZE the database after measured minute M (default: half the minutes,
                    none under 2; 0: none) and check the lists' plans and latency before and after it
  --skip-build      use dist/ as it is (noted in the results)
  --cpu-prof        run the service with node --cpu-prof; the profile lands in bench/results/profiles/
                    (read it with bench/tools/cpu-profile-summary.ts)

Environment: BENCH_DATABASE_URL (PostgreSQL server; unset: the embedded database), BENCH_REDIS_URL (optional).`;

function readSoakOptions(argv: string[], env: NodeJS.ProcessEnv): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '10' },
      share: { type: 'string', default: '0.7' },
      'step-seconds': { type: 'string', default: String(DEFAULT_LADDER.stepSeconds) },
      rate: { type: 'string' },
      connections: { type: 'string', default: '10' },
      'max-seconds': { type: 'string', default: '20' },
      'warmup-seconds': { type: 'string', default: '30' },
      instances: { type: 'string', default: '1' },
      'analyze-after-minute': { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
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
  const minutes = positive('minutes', values.minutes, true);
  const analyzeAfter =
    values['analyze-after-minute'] === undefined ? Math.floor(minutes / 2) : Number(values['analyze-after-minute']);
  if (!Number.isInteger(analyzeAfter) || analyzeAfter < 0 || analyzeAfter >= minutes)
    throw new Error(`--analyze-after-minute: a whole minute from 0 to ${minutes - 1}, got ${analyzeAfter}`);
  return {
    minutes,
    analyzeAfterMinute: analyzeAfter === 0 ? undefined : analyzeAfter,
    share,
    stepSeconds: positive('step-seconds', values['step-seconds'], true),
    rate: values.rate === undefined ? undefined : positive('rate', values.rate),
    connections: positive('connections', values.connections, true),
    maxWarmupSeconds: 5,
    maxSeconds: positive('max-seconds', values['max-seconds']),
    warmupSeconds: positive('warmup-seconds', values['warmup-seconds']),
    skipBuild: values['skip-build'],
    cpuProfile: values['cpu-prof'],
    instances: positive('instances', values.instances, true),
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

const loadAverageText = (load: number[]) => load.map((n) => n.toFixed(2)).join(' ');

interface MaxRate {
  seconds: number;
  requestsPerSecond: number;
  summary: ReturnType<typeof summarize>;
  cpu: CpuCores;
}

/** The closed-loop burst: as many requests of the mix as `connections` connections get answered. */
async function measureBurst(
  driver: MixDriver,
  kinds: MixKind[],
  options: SoakOptions,
  cpu: CpuMeter,
): Promise<MaxRate> {
  log(
    `burst: the mix over ${options.connections} connections, closed loop, ${options.maxWarmupSeconds} s ` +
      `warm-up + ${options.maxSeconds} s…`,
  );
  await driver.closedLoop(options.connections, options.maxWarmupSeconds, () => {});
  const tally = new Tally(kinds);
  const window = await cpu.window();
  const seconds = await driver.closedLoop(options.connections, options.maxSeconds, (result) => tally.add(result));
  const used = await window.end();
  const summary = summarize(kinds, [tally]);
  const never = summary.kinds.filter((kind) => kind.requests - kind.errors === 0);
  if (never.length > 0) {
    throw new Error(
      `the mix is wrong: never the expected status for ` +
        `${never.map((kind) => `${kind.name} (${JSON.stringify(kind.answers)})`).join(', ')}`,
    );
  }
  return { seconds, requestsPerSecond: tally.expectedAnswers() / seconds, summary, cpu: coresOf(used, seconds) };
}

/**
 * The fixed-rate run: the warm-up, then one stretch per minute. Every answer goes to the stretch
 * its request was due in; RSS is sampled every 2 s, CPU and the load average per stretch.
 */
async function soakAtRate(
  driver: MixDriver,
  kinds: MixKind[],
  options: SoakOptions,
  rate: number,
  servicePids: number[],
  cpu: CpuMeter,
  midRun: { afterMinute: number; run: () => Promise<void> } | undefined,
): Promise<PhaseRecord[]> {
  const stretch = (label: string, fromSecond: number, toSecond: number): PhaseRecord => ({
    label,
    fromSecond,
    toSecond,
    tally: new Tally(kinds),
    rssMb: [],
    cpu: null,
    loadAverage: [],
  });
  const phases = [stretch('warm-up', 0, options.warmupSeconds)];
  for (let minute = 1; minute <= options.minutes; minute += 1) {
    const fromSecond = options.warmupSeconds + (minute - 1) * 60;
    phases.push(stretch(`minute ${minute}`, fromSecond, fromSecond + 60));
  }
  const totalSeconds = phases[phases.length - 1]!.toSecond;
  const origin = performance.now();
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

  // Each stretch gets a CPU window from its start to its end. Its line is printed a second after
  // its end (answers to its last requests arrive then), or when the load is over; the table at
  // the end has every answer.
  let window: Promise<CpuWindow> = cpu.window();
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

  let midRunDone: Promise<void> = Promise.resolve();
  const midRunTimer =
    midRun === undefined
      ? undefined
      : setTimeout(
          () => {
            midRunDone = midRun.run();
          },
          origin + (options.warmupSeconds + midRun.afterMinute * 60) * 1_000 - performance.now(),
        );

  log(
    `fixed rate: ${rate} requests/s, open loop (up to ${OPEN_LOOP_MAX_SOCKETS} connections per instance), ` +
      `${options.warmupSeconds} s warm-up + ${options.minutes} minute(s)…`,
  );
  try {
    await driver.openLoop(
      rate,
      totalSeconds,
      (result) => phaseAt((result.dueAt - origin) / 1_000).tally.add(result),
      origin,
    );
    // The last answer may come before the last stretch's end: its CPU window and load average still close on time.
    await Promise.all(closed);
    await midRunDone;
  } finally {
    clearInterval(rssTimer);
    clearTimeout(midRunTimer);
  }
  for (const timer of printTimers) clearTimeout(timer);
  for (const phase of phases) printLine(phase);
  await (await window).end();
  return phases;
}

/** The staff lists' plans at the fixed rate's start, and around an ANALYZE in the middle of it (bench/plan-check.ts). */
interface PlanCheck {
  afterMinute: number;
  atStart: PlanReading[];
  beforeAnalyze?: PlanReading[];
  analyzeMs?: number;
  afterAnalyze?: PlanReading[];
}

/** The soak's staff lists, prepared statements whose plans may change with an ANALYZE. */
const PLANNED_LISTS = ['GET /v1/admin/users (page 1, with total)', 'GET /v1/admin/audit?action=users.*'];
/** A list's median after the ANALYZE against before it: a worse plan moves every request, so the median. */
const LIST_P50_AFTER_ANALYZE = { factor: 1.5, plusMs: 1 };

interface ListLatency {
  p50Ms: number;
  p99Ms: number;
  errorRate: number;
}

interface ListAroundAnalyze {
  name: string;
  before: ListLatency | null;
  after: ListLatency | null;
}

function listLatencyAroundAnalyze(kinds: MixKind[], before: PhaseRecord[], after: PhaseRecord[]): ListAroundAnalyze[] {
  const of = (phases: PhaseRecord[], name: string): ListLatency | null => {
    const kind = summarize(
      kinds,
      phases.map((phase) => phase.tally),
    ).kinds.find((each) => each.name === name);
    if (kind?.latency == null) return null;
    return { p50Ms: kind.latency.p50Ms, p99Ms: kind.latency.p99Ms, errorRate: kind.errors / kind.requests };
  };
  return PLANNED_LISTS.map((name) => ({ name, before: of(before, name), after: of(after, name) }));
}

/** Plans run in fractions of a millisecond: two decimals. */
const planMs = (ms: number) => `${ms.toFixed(2)} ms`;

function planChecks(check: PlanCheck, lists: ListAroundAnalyze[]): Check[] {
  const readings = [
    ['start', check.atStart],
    ['grown', check.beforeAnalyze],
    ['analyzed', check.afterAnalyze],
  ] as const;
  const planLines = check.atStart.map((statement, i): Check => {
    const taken = readings.map(([label, reading]) => [label, reading?.[i]] as const);
    return {
      check: `generic plan: ${statement.statement}`,
      value: taken
        .map(([label, reading]) =>
          reading === undefined ? `${label} ?` : `${label} ${planMs(reading.genericMs)}/${planMs(reading.customMs)}`,
        )
        .join(', '),
      bound: `${GENERIC_PLAN_BOUND} (generic/custom ms)`,
      met: taken.every(([, reading]) => reading !== undefined && genericPlanHolds(reading)),
    };
  });
  const latencyLines = lists.map(({ name, before, after }): Check => {
    const bound =
      before === null ? Infinity : before.p50Ms * LIST_P50_AFTER_ANALYZE.factor + LIST_P50_AFTER_ANALYZE.plusMs;
    const text = (latency: ListLatency | null) =>
      latency === null ? '?' : `${milliseconds(latency.p50Ms)}/${milliseconds(latency.p99Ms)}`;
    // A rate the service did not hold answers from a queue (or not at all): its latency says nothing of a plan.
    const held = (latency: ListLatency | null) => latency !== null && latency.errorRate < MAX_ERROR_RATE;
    return {
      check: `after ANALYZE: ${name}`,
      value: `p50/p99 ${text(before)} → ${text(after)}${held(before) && held(after) ? '' : ' (not judged: errors)'}`,
      bound: `p50 ≤ ${LIST_P50_AFTER_ANALYZE.factor} × before + ${LIST_P50_AFTER_ANALYZE.plusMs} ms`,
      met: held(before) && held(after) ? after!.p50Ms <= bound : null,
    };
  });
  return [...planLines, ...latencyLines];
}

function plansText(check: PlanCheck): string {
  const lines = [`The lists' plans (custom: made for the values; generic: what a prepared statement may keep):`];
  for (const [label, readings] of [
    ['at the start', check.atStart],
    [`after minute ${check.afterMinute}, before ANALYZE`, check.beforeAnalyze],
    ['after ANALYZE', check.afterAnalyze],
  ] as const) {
    lines.push(`  ${label}:`);
    for (const reading of readings ?? [])
      lines.push(
        `    ${reading.statement}: custom ${planMs(reading.customMs)}, generic ${planMs(reading.genericMs)}` +
          (reading.customPlan === reading.genericPlan
            ? `, the same plan: ${reading.customPlan}`
            : `\n      custom:  ${reading.customPlan}\n      generic: ${reading.genericPlan}`),
      );
  }
  return lines.join('\n');
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
  const settings = {
    dataDir: database.dataDir,
    databaseUrl: database.serviceUrl,
    redisUrl: options.redisUrl,
    jwtSecret,
  };
  const profileDir = join(
    import.meta.dirname,
    'results',
    'profiles',
    `soak-${started.toISOString().replace(/:/g, '-')}`,
  );
  const prepared = await prepareService(
    database,
    { ...settings, ...(options.cpuProfile ? { cpuProfileDir: profileDir } : {}) },
    FULL_SIZES,
    log,
  );
  const { service } = prepared;
  const services: RunningService[] = [service];
  for (let n = 1; n < options.instances; n += 1) {
    log(`starting instance ${n + 1} of ${options.instances}…`);
    // The profile follows the first instance only.
    services.push(await startService(settings));
  }
  const context = await makeContext(service.baseUrl, FULL_SIZES, jwtSecret);
  const kinds = soakMix(context);
  log(`signing in the 1,000 players over ${SIGN_IN_SPREAD_SECONDS} s…`);
  await signInOverAMinute(context);

  const cpu = await createCpuMeter(
    services.map((instance) => instance.pid),
    database.serviceUrl,
  );
  const driver = new MixDriver(
    services.map((instance) => instance.baseUrl),
    kinds,
  );
  process.once('SIGINT', () => driver.stop());
  process.once('SIGTERM', () => driver.stop());

  // The maximum is the sustained one: the highest fixed rate held for a step of the ladder, which
  // climbs from a share of the closed-loop burst (docs/decisions/0073-soak-method.md).
  const burst = options.rate === undefined ? await measureBurst(driver, kinds, options, cpu) : undefined;
  let ladder: Ladder | undefined;
  if (burst !== undefined) {
    log(maxRateTable(burst.summary, burst.seconds, burst.cpu));
    log(`burst: ${burst.requestsPerSecond.toFixed(0)} requests/s with the expected status`);
    ladder = await climbLadder(
      driver,
      kinds,
      burst.requestsPerSecond,
      { ...DEFAULT_LADDER, stepSeconds: options.stepSeconds },
      cpu,
      log,
    );
    log(ladderTable(ladder));
    if (ladder.sustainedRequestsPerSecond === null)
      throw new Error('no step of the ladder held: there is no sustained maximum to take a share of');
    log(
      `sustained maximum: ${ladder.sustainedRequestsPerSecond} requests/s ` +
        `(${((ladder.sustainedRequestsPerSecond / burst.requestsPerSecond) * 100).toFixed(0)} % of the burst)`,
    );
  }
  const rate = options.rate ?? Math.round(options.share * ladder!.sustainedRequestsPerSecond!);
  const databaseUrl = database.serviceUrl;
  const planCheck: PlanCheck | undefined =
    databaseUrl === undefined || options.analyzeAfterMinute === undefined
      ? undefined
      : { afterMinute: options.analyzeAfterMinute, atStart: await readPlans(databaseUrl) };
  const phases = await soakAtRate(
    driver,
    kinds,
    options,
    rate,
    services.map((instance) => instance.pid),
    cpu,
    planCheck === undefined
      ? undefined
      : {
          afterMinute: planCheck.afterMinute,
          run: async () => {
            planCheck.beforeAnalyze = await readPlans(databaseUrl!);
            planCheck.analyzeMs = await analyzeDatabase(databaseUrl!);
            planCheck.afterAnalyze = await readPlans(databaseUrl!);
            log(`  ANALYZE after minute ${planCheck.afterMinute} took ${planCheck.analyzeMs.toFixed(0)} ms`);
          },
        },
  );
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
  const listsAroundAnalyze =
    planCheck === undefined
      ? []
      : listLatencyAroundAnalyze(
          kinds,
          phases.slice(1, 1 + planCheck.afterMinute),
          phases.slice(1 + planCheck.afterMinute),
        );
  const checks = [
    ...verdict(soak, drift),
    ...(planCheck === undefined ? [] : planChecks(planCheck, listsAroundAnalyze)),
  ];
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
        },
      ],
      kinds,
    ),
  );
  log('');
  log(kindsTable(soak, minutes));
  if (planCheck !== undefined) {
    log('');
    log(plansText(planCheck));
  }
  log('');
  log(verdictTable(checks));
  const rateText =
    ladder === undefined
      ? ' (fixed by --rate)'
      : ` (${Math.round(options.share * 100)} % of the sustained maximum ${ladder.sustainedRequestsPerSecond}; ` +
        `the burst was ${burst!.requestsPerSecond.toFixed(0)})`;
  log(
    `\n${passed ? 'PASSED' : 'FAILED'}: ${rate} requests/s${rateText} for ${options.minutes} ` +
      `minute(s)${options.instances > 1 ? ` on ${options.instances} instances` : ''}; peak RSS ` +
      `${peakRssMb.toFixed(0)} MB (VmHWM${options.instances > 1 ? ', the largest instance' : ''})`,
  );
  if (serviceLogLines > 0)
    log(`\nThe service logged ${serviceLogLines} line(s) at warn or above; the last ones:\n${serviceLogTail}`);

  const file = writeResults(
    {
      date: started.toISOString(),
      source,
      built: !options.skipBuild,
      database: database.kind,
      redis: options.redisUrl !== undefined,
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
        instances: options.instances,
        share: options.share,
        basis: options.rate === undefined ? 'sustained' : 'rate',
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
      maxRate: burst ?? null,
      ladder: ladder ?? null,
      phases: summaries,
      rssSamplesMb: phases.map((phase) => ({
        label: phase.label,
        samples: phase.rssMb.map((mb) => Math.round(mb * 10) / 10),
      })),
      soak,
      rssDrift: drift,
      planCheck: planCheck === undefined ? null : { ...planCheck, listsAroundAnalyze },
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
