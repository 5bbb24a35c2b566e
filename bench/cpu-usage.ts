import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Kernel clock ticks per second for /proc/<pid>/stat (USER_HZ; 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds a process has used so far (Linux /proc); undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; the numeric fields start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000) / TICKS_PER_SECOND;
}

/**
 * Where a scenario's CPU went: the service process, and (on PostgreSQL) the server backends
 * serving the bench database. Divided by the requests answered, this says whether a slow route
 * is slow in Node.js or in its queries. The machine is shared, so CPU time is steadier than rates.
 */
export interface CpuWindow {
  /**
   * Ends the window: CPU milliseconds used during it by the service, the database backends
   * (null on the embedded database, which runs inside the service) and this process, the load
   * generator: when it is busy, the rate says more about autocannon than about the service.
   */
  end(): Promise<{ serviceMs: number; databaseMs: number | null; loadGeneratorMs: number }>;
}

export interface CpuMeter {
  window(): Promise<CpuWindow>;
  close(): Promise<void>;
}

async function backendCpu(client: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) usage.set(pid, ms);
  }
  return usage;
}

const summedCpuMs = (pids: readonly number[], fallback: readonly number[]) =>
  pids.reduce((sum, pid, i) => sum + (processCpuMs(pid) ?? fallback[i] ?? 0), 0);

/**
 * `servicePids`: the processes answering (the service's instances, or the baseline server), summed.
 * `databaseUrl` unset: no separate database (the embedded one shows in the service process itself).
 */
export async function createCpuMeter(
  servicePids: number | readonly number[],
  databaseUrl: string | undefined,
): Promise<CpuMeter> {
  const pids = typeof servicePids === 'number' ? [servicePids] : servicePids;
  let client: pg.Client | undefined;
  let database = '';
  if (databaseUrl !== undefined) {
    client = new pg.Client({ connectionString: databaseUrl });
    // Ctrl-C drops the database (WITH FORCE) while this connection is still open: not a crash.
    client.on('error', () => {});
    await client.connect();
    database = new URL(databaseUrl).pathname.slice(1);
  }
  return {
    async window() {
      const ownStart = process.cpuUsage();
      const startMs = pids.map((pid) => processCpuMs(pid) ?? 0);
      const serviceStart = startMs.reduce((sum, ms) => sum + ms, 0);
      const backendsStart = client === undefined ? undefined : await backendCpu(client, database);
      return {
        async end() {
          // A process gone meanwhile counts as having used nothing more.
          const serviceMs = summedCpuMs(pids, startMs) - serviceStart;
          const own = process.cpuUsage(ownStart);
          const loadGeneratorMs = (own.user + own.system) / 1_000;
          if (client === undefined || backendsStart === undefined)
            return { serviceMs, databaseMs: null, loadGeneratorMs };
          // Backends that ended during the window are lost (the pool keeps its connections busy, so few do).
          let databaseMs = 0;
          for (const [pid, ms] of await backendCpu(client, database)) databaseMs += ms - (backendsStart.get(pid) ?? 0);
          return { serviceMs, databaseMs, loadGeneratorMs };
        },
      };
    },
    async close() {
      await client?.end();
    },
  };
}
