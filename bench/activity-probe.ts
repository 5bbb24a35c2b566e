import pg from 'pg';

/** One service session caught running a statement: its pool's name and what it waited on, if anything. */
export interface ActiveSession {
  pool: string;
  type: string | null;
  event: string | null;
}

/** What the service's database sessions did in one second, sampled every 100 ms. */
export interface ActivitySecond {
  samples: number;
  /** Sessions running a statement, by pool (the sessions' application_name), on average over the samples. */
  active: Record<string, number>;
  /**
   * The commonest waits of those sessions, as shares of all active session-samples (%): `Type:Event`
   * from pg_stat_activity, or `CPU` when it names none (running, or waiting for a core).
   */
  waits: Array<[what: string, percent: number]>;
}

const SAMPLE_EVERY_MS = 100;
const TOP_WAITS = 3;
const round = (value: number) => Math.round(value * 10) / 10;

export function summarizeActivity(samples: ActiveSession[][]): ActivitySecond {
  const active: Record<string, number> = {};
  const waits = new Map<string, number>();
  let sessions = 0;
  for (const sample of samples) {
    for (const { pool, type, event } of sample) {
      active[pool] = (active[pool] ?? 0) + 1;
      const what = type === null ? 'CPU' : `${type}:${event}`;
      waits.set(what, (waits.get(what) ?? 0) + 1);
      sessions += 1;
    }
  }
  for (const pool of Object.keys(active)) active[pool] = round(active[pool]! / samples.length);
  return {
    samples: samples.length,
    active,
    waits: [...waits]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_WAITS)
      .map(([what, count]) => [what, round((count / sessions) * 100)]),
  };
}

/** `reads 5.2, writes 3.1 (CPU 61 %, LWLock:WALWrite 22 %, Lock:tuple 9 %)`: what to print beside a slow second. */
export function sessionsText({ samples, active, waits }: ActivitySecond): string {
  if (samples === 0) return 'no sample';
  const pools =
    Object.entries(active)
      .map(([pool, mean]) => `${pool.replace(/^platform-api ?/, '') || 'pool'} ${mean}`)
      .join(', ') || 'none';
  return waits.length === 0 ? pools : `${pools} (${waits.map(([what, percent]) => `${what} ${percent} %`).join(', ')})`;
}

/**
 * A slow second with short queries leaves the question of what PostgreSQL's sessions were doing:
 * running, waiting for the WAL, for a lock, for the client. This samples pg_stat_activity every
 * 100 ms over its own connection, for the service's sessions only (`application_name` starting
 * with `platform-api`), so the soak can print it beside each worst second. A stalled server
 * stalls the sampler too: a second's `samples` says how many it got.
 */
export async function startActivityProbe(
  databaseUrl: string,
): Promise<{ take(): ActivitySecond; stop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'soak activity probe' });
  // The soak drops its database (WITH FORCE) at the end, maybe before this connection closes.
  client.on('error', () => {});
  await client.connect();
  let samples: ActiveSession[][] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query<ActiveSession>(
        `SELECT application_name AS pool, wait_event_type AS type, wait_event AS event FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND application_name LIKE 'platform-api%'`,
      );
      samples.push(rows);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })().catch((error: unknown) => {
    if (!stopped)
      process.stderr.write(`activity probe stopped: ${error instanceof Error ? error.message : String(error)}\n`);
  });
  return {
    take() {
      const second = summarizeActivity(samples);
      samples = [];
      return second;
    },
    async stop() {
      stopped = true;
      await loop;
      await client.end().catch(() => {});
    },
  };
}
