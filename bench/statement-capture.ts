import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import pg from 'pg';
import { call, type HttpCall } from './http-client.js';
import { startService, type ServiceSettings } from './service-process.js';

/**
 * Captures, from PostgreSQL's own statement log, the statements the service sends for one
 * answer. The same-work floors (`floor-statements.ts`) send exactly these; this is how they were
 * captured and how every PostgreSQL run checks that they still match.
 *
 * How: `ALTER DATABASE <bench db> SET log_statement = 'all'` (only sessions opened afterwards
 * log, and only in the bench database), a service instance of its own started afterwards, each
 * request asked once to warm caches, then asked again between two marker queries sent on a
 * connection of ours; the service's statements logged between the markers are the answer's.
 * The setting is reset before returning. Needs a superuser (ALTER DATABASE … SET log_statement)
 * and the server log readable on this machine: `pg_current_logfile()` when the logging collector
 * runs, else Debian's `/var/log/postgresql/postgresql-<cluster>.log`, or BENCH_POSTGRES_LOG; and
 * `%p` (the backend's pid) in `log_line_prefix`, as in Debian's default.
 */

/** One statement as the log shows it: `statement` (simple protocol) or `execute` (extended). */
export interface CapturedStatement {
  protocol: 'statement' | 'execute';
  /** A named prepared statement's name (`execute <name>:`); absent when unnamed or simple. */
  name?: string;
  sql: string;
  /** The `DETAIL:  parameters: …` line, when the statement had any. */
  parameters?: string;
}

export interface CaptureRequest {
  name: string;
  call: HttpCall;
  expectedStatus: number;
  /** The call of each attempt (warm-ups, then the captured one), for a write that must change something each time. */
  vary?: (attempt: number) => HttpCall;
  /** Whether a capture holds what was expected; unset: the first capture is kept. */
  accept?: (statements: CapturedStatement[]) => boolean;
}

export type CaptureResult = { ok: true; statements: Map<string, CapturedStatement[]> } | { ok: false; reason: string };

const MARKER = 'bench statement capture';
/**
 * Calls before the captured one: a token's first request records its session (writes whose
 * notices drop the cached principal), the second loads the principal again; from the third on,
 * the answer is what a signed-in staff member's request costs in the measured run.
 */
const WARM_UPS = 2;
/**
 * The service's background work (the outbox sender, scheduled jobs) shares its sessions, so a
 * capture may hold a statement of theirs: up to this many captures, until `accept` takes one.
 */
const CAPTURES = 3;

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function serverLogFile(client: pg.Client): Promise<string | null> {
  const override = process.env.BENCH_POSTGRES_LOG?.trim();
  if (override) return override;
  const current = (await client.query<{ file: string | null }>('SELECT pg_current_logfile() AS file')).rows[0]?.file;
  if (current) {
    if (isAbsolute(current)) return current;
    const dataDir = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
    return join(dataDir, current);
  }
  const cluster = (await client.query<{ cluster_name: string }>('SHOW cluster_name')).rows[0]?.cluster_name;
  return cluster ? `/var/log/postgresql/postgresql-${cluster.replace('/', '-')}.log` : null;
}

function readFrom(file: string, offset: number): string {
  const size = statSync(file).size;
  if (size <= offset) return '';
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

interface LogEntry {
  pid: number;
  level: string;
  message: string;
}

/** Log entries: a line with `[pid] … LEVEL:  message`, continued by lines without a prefix (multi-line SQL). */
export function parseLog(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  const head = /\[(\d+)\][^\n]*? (LOG|DETAIL|ERROR|STATEMENT|WARNING|NOTICE|HINT|CONTEXT|FATAL): {2}(.*)$/;
  const prefixed = /^\d{4}-\d{2}-\d{2} /;
  for (const line of text.split('\n')) {
    const match = head.exec(line);
    if (match !== null && prefixed.test(line)) {
      entries.push({ pid: Number(match[1]), level: match[2]!, message: match[3]! });
    } else if (entries.length > 0 && line !== '' && !prefixed.test(line)) {
      const last = entries[entries.length - 1]!;
      last.message += `\n${line.replace(/^\t/, '')}`;
    }
  }
  return entries;
}

/** The statements one pid set sent between the begin and end markers of `name`. */
export function statementsBetween(entries: LogEntry[], name: string, servicePids: Set<number>): CapturedStatement[] {
  const begin = entries.findIndex((e) => e.message.includes(`'${MARKER} begin: ${name}'`));
  const end = entries.findIndex((e) => e.message.includes(`'${MARKER} end: ${name}'`));
  if (begin < 0 || end < begin) throw new Error(`the markers of "${name}" are not in the server log`);
  const statements: CapturedStatement[] = [];
  for (const entry of entries.slice(begin + 1, end)) {
    if (!servicePids.has(entry.pid)) continue;
    const logged = /^(statement|execute ([^:]*)): ([\s\S]*)$/.exec(entry.message);
    if (entry.level === 'LOG' && logged !== null) {
      const name = logged[2] === undefined || logged[2] === '<unnamed>' ? undefined : logged[2];
      statements.push({
        protocol: logged[1] === 'statement' ? 'statement' : 'execute',
        ...(name === undefined ? {} : { name }),
        sql: logged[3]!.trim(),
      });
    } else if (entry.level === 'DETAIL' && entry.message.startsWith('parameters: ') && statements.length > 0) {
      statements[statements.length - 1]!.parameters = entry.message.slice('parameters: '.length);
    }
  }
  return statements;
}

export async function captureStatements(
  databaseUrl: string,
  settings: ServiceSettings,
  requests: CaptureRequest[],
): Promise<CaptureResult> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const prefix = (await admin.query<{ log_line_prefix: string }>('SHOW log_line_prefix')).rows[0]!.log_line_prefix;
    if (!prefix.includes('%p')) return { ok: false, reason: `log_line_prefix '${prefix}' has no %p` };
    const file = await serverLogFile(admin);
    let offset: number;
    try {
      offset = file === null ? -1 : statSync(file).size;
    } catch {
      offset = -1;
    }
    if (file === null || offset < 0)
      return { ok: false, reason: `the server log (${file ?? 'unknown'}) is not readable here` };

    await admin.query(`ALTER DATABASE ${quoteIdent(database)} SET log_statement = 'all'`);
    try {
      const service = await startService(settings);
      const marker = new pg.Client({ connectionString: databaseUrl });
      await marker.connect();
      try {
        const adminPid = (admin as unknown as { processID: number }).processID;
        const statements = new Map<string, CapturedStatement[]>();
        let attempt = 0;
        const ask = async (request: CaptureRequest) => {
          const answer = await call(service.baseUrl, request.vary?.(attempt++) ?? request.call);
          if (answer.status !== request.expectedStatus)
            throw new Error(`${request.name}: expected ${request.expectedStatus}, got ${answer.status}`);
        };
        for (const request of requests) {
          attempt = 0;
          for (let warmUp = 0; warmUp < WARM_UPS; warmUp += 1) await ask(request);
          for (let capture = 1; capture <= CAPTURES; capture += 1) {
            const name = `${request.name} #${capture}`;
            await marker.query(`SELECT '${MARKER} begin: ${name}'`);
            await ask(request);
            await marker.query(`SELECT '${MARKER} end: ${name}'`);
            const { rows } = await marker.query<{ pid: number }>(
              'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
              [database],
            );
            const servicePids = new Set(rows.map((row) => row.pid).filter((pid) => pid !== adminPid));
            // The log is written as statements arrive; give the last lines a moment to reach the file.
            await new Promise((resolve) => setTimeout(resolve, 200));
            const captured = statementsBetween(parseLog(readFrom(file, offset)), name, servicePids);
            statements.set(request.name, captured);
            if (request.accept?.(captured) ?? true) break;
          }
        }
        return { ok: true, statements };
      } finally {
        await marker.end();
        await service.stop();
      }
    } finally {
      await admin.query(`ALTER DATABASE ${quoteIdent(database)} RESET log_statement`);
    }
  } finally {
    await admin.end();
  }
}
