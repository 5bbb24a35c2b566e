import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { onCleanup } from './cleanup.js';

/**
 * `--pin`: the service alone on the machine's last core, and PostgreSQL (its postmaster and
 * every process it forks, the soak's backends among them) and the load generator on the others.
 * In production the service does not share its cores with its database or its clients; on a
 * shared machine they take turns on the same cores (on this 2-core one, the service's event loop
 * waited for a core 11–16 % of the time). Here the split did not help: the one core left made
 * every database round trip wait for it (bench/README.md, "Probes and tools").
 *
 * Linux only (`taskset`, /proc). PostgreSQL is the machine's: its affinity is put back on every
 * exit (the clean-up), and backends forked meanwhile for other databases keep the narrower one
 * until they end.
 */
export interface Pinning {
  serviceCores: string;
  otherCores: string;
}

export function pinningPlan(coreCount = cpus().length): Pinning {
  if (coreCount < 2) throw new Error(`--pin needs 2 cores or more; this machine has ${coreCount}`);
  const last = coreCount - 1;
  return { serviceCores: String(last), otherCores: last === 1 ? '0' : `0-${last - 1}` };
}

/** Every thread of `pid` on `cores` (a taskset list); threads started later inherit it. */
export function pinProcess(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

function affinityOf(pid: number): string {
  const text = execFileSync('taskset', ['-p', '-c', String(pid)], { encoding: 'utf8' });
  const list = /affinity list: (\S+)/.exec(text)?.[1];
  if (list === undefined) throw new Error(`taskset: cannot read the affinity of ${pid}: ${text.trim()}`);
  return list;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => parentOf(pid) === parent);
}

/** Pins the postmaster of the server behind `databaseUrl` and its processes; undone at clean-up. */
export async function pinPostgres(
  databaseUrl: string,
  cores: string,
): Promise<{ postmasterPid: number; processes: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let postmasterPid: number | undefined;
  try {
    // Read while the connection is open: its backend ends with it.
    postmasterPid = parentOf((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  } finally {
    await client.end();
  }
  if (postmasterPid === undefined)
    throw new Error('--pin: PostgreSQL must run on this machine (its backend is not a process here)');
  const original = affinityOf(postmasterPid);
  const pinAll = (list: string) => {
    let count = 0;
    for (const pid of [postmasterPid, ...childrenOf(postmasterPid)]) {
      try {
        pinProcess(pid, list);
        count += 1;
      } catch {
        // A backend that ended between the listing and taskset.
      }
    }
    return count;
  };
  onCleanup('PostgreSQL CPU affinity', () => {
    pinAll(original);
  });
  return { postmasterPid, processes: pinAll(cores) };
}
