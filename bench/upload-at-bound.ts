import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuMeter } from './cpu-usage.js';
import { call, expectStatus, type HttpAnswer } from './http-client.js';
import { readMemory, type RssMonitor } from './memory.js';
import { judgedRow, type CpuSplit, type Row } from './report.js';
import type { BenchContext } from './scenarios.js';
import { benchUser } from './seed/fixtures.js';
import { outsiderEmail } from './seed/email.js';
import type { SeedSizes } from './options.js';

/**
 * Operation 9 at its bound (a 5,000,000-character CSV, the spec's maximum) while `/health` is
 * asked over and over, one request at a time: the slowest `/health` answer is how long the
 * upload held the event loop. Issue 28 item 5: 2.5 M invalid rows blocked it for 8–13 s.
 */
export interface UploadAtBound {
  name: string;
  /** The CSV; `--quick` sizes make a tenth of the bound. */
  csv(sizes: SeedSizes): string;
  check(answer: HttpAnswer, sizes: SeedSizes): string | null;
}

export interface UploadAtBoundOutcome {
  name: string;
  csvCharacters: number;
  status: number;
  uploadMs: number;
  /** Every `/health` answer time while the upload was under way, in order. */
  healthMs: number[];
  /**
   * Beside each `/health`, a request answered before any database work (`GET /v1/me` without a
   * token: 401): the event loop alone, where `/health` also waits for its once-a-second `SELECT 1`
   * on a database the upload keeps busy.
   */
  loopOnlyMs: number[];
  /** The most the service held during the upload, and what it held a second after. */
  peakRssMb: number;
  rssAfterMb: number | null;
  cpuMs: CpuSplit;
  problem: string | null;
}

/**
 * The slowest `/health` answer during the upload may take this long: far inside a load balancer's
 * health-check timeout, and room for the body's JSON.parse (one block: 50–100 ms for 2.5 M escapes)
 * on this shared machine. Read in one go, the 2.5 M refused rows held `/health` 65–80 s here.
 */
export const HEALTH_DURING_UPLOAD_TARGET_MS = 500;
const MAX_CSV_CHARACTERS = 5_000_000;
const MAX_AUDIENCE_MEMBERS = 50_000;
const HEALTH_PAUSE_MS = 10;

const boundFor = (sizes: SeedSizes) => Math.round(MAX_CSV_CHARACTERS * (sizes.csvRows / 50_000));

/** Rows of `address,name,country,signup date` padded so `rows` of them fill `length` characters. */
function exportedCsv(rows: number, length: number): string {
  const header = 'email,name,country,signed_up,notes\r\n';
  const lines: string[] = [header];
  let used = header.length;
  for (let n = 1; n <= rows; n += 1) {
    const address = n % 5 === 0 ? benchUser(n).email : outsiderEmail(n);
    const start = `${address},Reader ${n},DE,2026-01-01,`;
    const fill = Math.max(0, Math.floor((length - used) / (rows - n + 1)) - start.length - 2);
    const line = `${start}${'n'.repeat(fill)}\r\n`;
    lines.push(line);
    used += line.length;
  }
  return lines.join('');
}

/** Short distinct addresses, one a line, up to `length` characters. */
function distinctAddresses(length: number): string {
  const lines: string[] = [];
  let used = 0;
  for (let n = 1; ; n += 1) {
    const line = `u${n}@x.example\n`;
    if (used + line.length > length) break;
    lines.push(line);
    used += line.length;
  }
  return lines.join('');
}

function expectAnswer(answer: HttpAnswer, status: number, expected: Record<string, unknown>): string | null {
  if (answer.status !== status) return `status ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`;
  const body = answer.body as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    const got = JSON.stringify(body[key]);
    if (got !== JSON.stringify(value)) return `${key} is ${got.slice(0, 200)}, expected ${JSON.stringify(value)}`;
  }
  return null;
}

export const UPLOADS_AT_BOUND: UploadAtBound[] = [
  {
    name: 'op 9 at the bound: 2.5 M refused rows (x\\n each)',
    csv: (sizes) => 'x\n'.repeat(boundFor(sizes) / 2),
    check: (answer, sizes) => {
      const problem = expectAnswer(answer, 400, { error: 'validation_failed' });
      if (problem !== null) return problem;
      const details = (answer.body as { details: { invalid_count: number; invalid_emails: string[] } }).details;
      if (details.invalid_count !== boundFor(sizes) / 2) return `invalid_count ${details.invalid_count}`;
      return details.invalid_emails.length <= 20 ? null : `${details.invalid_emails.length} invalid_emails named`;
    },
  },
  {
    name: 'op 9 at the bound: 50 k wide rows (address and 4 more columns)',
    csv: (sizes) => exportedCsv(sizes.csvRows, boundFor(sizes)),
    check: (answer, sizes) => expectAnswer(answer, 200, { count: sizes.csvRows }),
  },
  {
    // Every row an address: at the bound 284 k distinct ones, all checked, one past the limit kept (422).
    name: 'op 9 at the bound: distinct addresses only',
    csv: (sizes) => distinctAddresses(boundFor(sizes)),
    check: (answer, sizes) => {
      const rows = distinctAddresses(boundFor(sizes)).split('\n').length - 1;
      return rows > MAX_AUDIENCE_MEMBERS
        ? expectAnswer(answer, 422, { error: 'too_many_members' })
        : expectAnswer(answer, 200, { count: rows });
    },
  },
];

/** A fresh audience per upload: the bulk operations' audience keeps its shape. */
async function newAudience(context: BenchContext, name: string): Promise<string> {
  const answer = await expectStatus(context.baseUrl, 201, {
    method: 'POST',
    path: '/v1/admin/email/audiences',
    token: context.adminToken,
    body: { name: `bench: ${name}`.slice(0, 200) },
  });
  return (answer.body as { id: string }).id;
}

export async function measureUploadAtBound(
  bound: UploadAtBound,
  context: BenchContext,
  cpu: CpuMeter,
  memory: RssMonitor,
  pid: number,
): Promise<UploadAtBoundOutcome> {
  const audienceId = await newAudience(context, bound.name);
  const csv = bound.csv(context.sizes);
  const endMemory = memory.window();
  const cpuWindow = await cpu.window();
  let finished = false;
  const upload = call(context.baseUrl, {
    method: 'PUT',
    path: `/v1/admin/email/audiences/${audienceId}/members`,
    token: context.adminToken,
    body: { csv },
    timeoutMs: 120_000,
  }).finally(() => {
    finished = true;
  });
  const healthMs: number[] = [];
  const loopOnlyMs: number[] = [];
  let healthProblem: string | null = null;
  while (!finished) {
    const [health, loopOnly] = await Promise.all([
      call(context.baseUrl, { path: '/health', timeoutMs: 120_000 }),
      call(context.baseUrl, { path: '/v1/me', timeoutMs: 120_000 }),
    ]);
    if (health.status !== 200) healthProblem ??= `/health answered ${health.status}`;
    if (loopOnly.status !== 401) healthProblem ??= `GET /v1/me without a token answered ${loopOnly.status}`;
    healthMs.push(health.ms);
    loopOnlyMs.push(loopOnly.ms);
    await sleep(HEALTH_PAUSE_MS);
  }
  const answer = await upload;
  const used = await cpuWindow.end();
  const peakRssMb = endMemory();
  await sleep(1_000);
  return {
    name: bound.name,
    csvCharacters: csv.length,
    status: answer.status,
    uploadMs: answer.ms,
    healthMs,
    loopOnlyMs,
    peakRssMb,
    rssAfterMb: readMemory(pid)?.rssMb ?? null,
    cpuMs: { service: used.serviceMs, database: used.databaseMs },
    problem:
      bound.check(answer, context.sizes) ??
      healthProblem ??
      (healthMs.length === 0 ? 'no /health answer during the upload' : null),
  };
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

/** p50 and p99 are the `/health` answers'; the statuses column names the upload and its time. */
export function uploadAtBoundRow(outcome: UploadAtBoundOutcome): Row {
  const slowest = outcome.healthMs.length === 0 ? null : Math.max(...outcome.healthMs);
  let met: Row['met'] = 'FAILED';
  if (outcome.problem === null) met = slowest !== null && slowest <= HEALTH_DURING_UPLOAD_TARGET_MS ? 'yes' : 'NO';
  const rssAfter = outcome.rssAfterMb?.toFixed(0) ?? '?';
  const upload = `PUT ${outcome.status} in ${(outcome.uploadMs / 1_000).toFixed(2)} s, RSS after ${rssAfter} MB`;
  const loopOnly = `no-database 401 slowest ${Math.round(Math.max(...outcome.loopOnlyMs))} ms`;
  return judgedRow({
    scenario: `/health during ${outcome.name}`,
    p50Ms: percentile(outcome.healthMs, 0.5),
    p99Ms: slowest,
    peakRssMb: outcome.peakRssMb,
    cpuMs: outcome.cpuMs,
    target: `slowest ≤ ${HEALTH_DURING_UPLOAD_TARGET_MS} ms`,
    met,
    statuses: outcome.problem ?? `${upload}; /health 200×${outcome.healthMs.length}; ${loopOnly}`,
  });
}
