import { parseArgs } from 'node:util';

/** How much data the seed writes. The full run uses the sizes; --quick a tenth. */
export interface SeedSizes {
  /** Active users: every broadcast recipient, every token the player scenarios rotate through. */
  activeUsers: number;
  /** Banned and soft-deleted users on top of the active ones (staff lists show them too). */
  inactiveUsers: number;
  storeGames: number;
  contentBlocks: number;
  ledgerEntries: number;
  audienceMembers: number;
  auditRows: number;
  achievements: number;
  localSubscriptions: number;
  bulkGrantUsers: number;
  csvRows: number;
}

export interface BenchOptions {
  quick: boolean;
  /** BENCH_DATABASE_URL: a PostgreSQL server to make the run's database on; unset: embedded PGlite. */
  databaseUrl: string | undefined;
  /** BENCH_REDIS_URL: handed to the service as REDIS_URL (shared rate-limit counters); unset: in-process. */
  redisUrl: string | undefined;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  /** Each bulk operation runs this many times; the median is reported. */
  bulkRepeats: number;
  sizes: SeedSizes;
  /** Start the service with --cpu-prof; profiles land in bench/results/profiles/. */
  cpuProfile: boolean;
  /** Run only the scenarios and bulk operations whose name contains one of these (no results file). */
  only: string[];
  /** Use dist/ as it is (profiling rounds); a results run always builds. */
  skipBuild: boolean;
  /**
   * Service instances of the scale-out step (bench/instances.ts); 1: no such step. Two by default
   * on a full PostgreSQL run (the embedded database is one process's).
   */
  instances: number;
  /** Options for the service's node (a heap setting being measured: `--node-option=--max-semi-space-size=4`); none by default. */
  nodeOptions: string[];
}

export const FULL_SIZES: SeedSizes = {
  activeUsers: 10_000,
  inactiveUsers: 100,
  storeGames: 1_000,
  contentBlocks: 200,
  ledgerEntries: 50_000,
  audienceMembers: 50_000,
  auditRows: 50_000,
  achievements: 100,
  localSubscriptions: 1_000,
  bulkGrantUsers: 500,
  csvRows: 50_000,
};

function tenth(sizes: SeedSizes): SeedSizes {
  return Object.fromEntries(
    Object.entries(sizes).map(([key, value]) => [key, Math.max(10, Math.round(value / 10))]),
  ) as unknown as SeedSizes;
}

const USAGE = `Usage: npm run bench -- [--quick] [--cpu-prof] [--only name[,name…]] [--skip-build] [--instances N] [--node-option OPT]…

  --quick     every scenario for about a second on a tenth of the data (CI: proves the bench runs)
  --cpu-prof  run the service with node --cpu-prof (profiles in bench/results/profiles/)
  --only      run only scenarios/bulk operations whose name contains one of these; writes no results file
  --skip-build  use dist/ as it is (with --only, for profiling rounds)
  --instances N the scale-out step: a few scenarios again on N instances sharing the database and the
              connections (PostgreSQL only; default 2 on a full run, 1 = none)
  --node-option OPT  an option for the service's node, repeatable (--node-option=--max-semi-space-size=4):
              what a heap setting costs and saves, measured in one run

Environment: BENCH_DATABASE_URL (PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres;
unset: the embedded database), BENCH_REDIS_URL (optional, passed to the service as REDIS_URL).`;

export function readOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      only: { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      instances: { type: 'string' },
      'node-option': { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick;
  const databaseUrl = env.BENCH_DATABASE_URL?.trim() || undefined;
  const instances =
    values.instances === undefined ? (databaseUrl !== undefined && !quick ? 2 : 1) : Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1 || instances > 8) throw new Error('--instances takes 1 to 8');
  if (instances > 1 && databaseUrl === undefined) throw new Error('--instances needs PostgreSQL (BENCH_DATABASE_URL)');
  if (values['skip-build'] && values.only === undefined) {
    throw new Error('--skip-build is for profiling rounds with --only: a results run measures what it just built');
  }
  return {
    quick,
    databaseUrl,
    redisUrl: env.BENCH_REDIS_URL?.trim() || undefined,
    warmupSeconds: quick ? 0.5 : 2,
    durationSeconds: quick ? 1 : 8,
    connections: 10,
    bulkRepeats: quick ? 1 : 3,
    sizes: quick ? tenth(FULL_SIZES) : FULL_SIZES,
    cpuProfile: values['cpu-prof'],
    only:
      values.only === undefined
        ? []
        : values.only
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
    skipBuild: values['skip-build'],
    instances,
    nodeOptions: values['node-option'] ?? [],
  };
}

/** Whether `--only` lets this scenario or bulk operation run. */
export function selected(options: BenchOptions, name: string): boolean {
  return options.only.length === 0 || options.only.some((part) => name.includes(part));
}
