import type { CpuMeter } from './cpu-usage.js';
import { call, type HttpCall } from './http-client.js';
import type { RssMonitor } from './memory.js';
import type { BulkOutcome } from './report.js';
import type { BenchContext } from './scenarios.js';
import {
  AUDIENCE_ID,
  BULK_ROLE_KEY,
  EMAIL_TEMPLATE_KEY,
  PLAN_PRODUCTS,
  benchUser,
  bulkGrantRange,
} from './seed/fixtures.js';
import { audienceShape, outsiderEmail } from './seed/email.js';
import type { SeedSizes } from './options.js';

/**
 * The spec's bulk operations, each timed end to end through HTTP (one request: upload, work,
 * answer). Requests are built before the clock starts. `check` says whether the answer is the
 * one the operation should give; a wrong answer fails the run, since nothing was measured.
 */
export interface BulkOperation {
  name: string;
  targetSeconds: number;
  /** The request of the n-th repetition (0-based); each repetition does real work. */
  request(context: BenchContext, repetition: number): HttpCall;
  check(answer: { status: number; body: unknown }, sizes: SeedSizes): string | null;
}

const BULK_TIMEOUT_MS = 120_000;

/**
 * Operation 9's CSV: the players' addresses and a window of outsiders that shifts with `variant`
 * by a tenth of the list, so a replace keeps most members, removes some and adds as many. A
 * header row, and some addresses in capitals (stored lowercased) as spreadsheets export them.
 */
export function audienceCsv(sizes: SeedSizes, variant: number): string {
  const { players, outsiders } = audienceShape(sizes);
  const shift = variant * Math.floor(sizes.csvRows / 10);
  const rows = ['email'];
  for (let n = 1; n <= players; n += 1) rows.push(benchUser(n).email);
  for (let n = 1 + shift; rows.length <= sizes.csvRows && n <= outsiders + shift; n += 1) {
    const address = outsiderEmail(n);
    rows.push(n % 97 === 0 ? address.toUpperCase() : address);
  }
  return `${rows.join('\r\n')}\r\n`;
}

function expectOk(answer: { status: number; body: unknown }, expected: Record<string, unknown>): string | null {
  if (answer.status !== 200) return `status ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`;
  const body = answer.body as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    if (JSON.stringify(body[key]) !== JSON.stringify(value))
      return `${key} is ${JSON.stringify(body[key])}, expected ${JSON.stringify(value)}`;
  }
  return null;
}

export const BULK_OPERATIONS: BulkOperation[] = [
  {
    name: 'op 9: audience CSV replace',
    targetSeconds: 1.5,
    // Odd repetitions shift the outsiders (35k kept, 5k out, 5k in at full size); even ones shift back.
    request: ({ adminToken, sizes }, repetition) => ({
      method: 'PUT',
      path: `/v1/admin/email/audiences/${AUDIENCE_ID}/members`,
      token: adminToken,
      body: { csv: audienceCsv(sizes, repetition % 2 === 0 ? 1 : 0) },
      timeoutMs: BULK_TIMEOUT_MS,
    }),
    check: (answer, sizes) => expectOk(answer, { count: sizes.csvRows }),
  },
  {
    name: 'op 14: bulk role grant',
    targetSeconds: 0.25,
    request: ({ adminToken, sizes }, repetition) => ({
      method: 'POST',
      path: '/v1/admin/users/bulk/roles',
      token: adminToken,
      timeoutMs: BULK_TIMEOUT_MS,
      body: {
        user_ids: bulkGrantRange(sizes, repetition).map((n) => benchUser(n).id),
        role_key: BULK_ROLE_KEY,
        action: 'grant',
        reason: 'bench: beta wave',
      },
    }),
    check: (answer, sizes) => {
      const problem = expectOk(answer, {});
      if (problem !== null) return problem;
      const results = (answer.body as { results: { ok: boolean }[] }).results;
      const ok = results.filter((result) => result.ok).length;
      return ok === sizes.bulkGrantUsers ? null : `${ok} of ${sizes.bulkGrantUsers} users granted`;
    },
  },
  {
    // A non-empty segment, so the notification gets one recipient row per user (an empty one is a single row).
    name: 'op 19: broadcast (notification + email)',
    targetSeconds: 1.5,
    request: ({ adminToken }, repetition) => ({
      method: 'POST',
      path: '/v1/admin/notifications/broadcast',
      token: adminToken,
      timeoutMs: BULK_TIMEOUT_MS,
      body: {
        segment: { status: 'active' },
        notification: {
          kind: 'info',
          title: `Season ${repetition + 1} is live`,
          body: 'New games every week.',
          action_url: '/store',
        },
        email: { template_key: EMAIL_TEMPLATE_KEY, vars: { headline: `Season ${repetition + 1} is live` } },
      },
    }),
    check: (answer, sizes) =>
      expectOk(answer, {
        recipients: sizes.activeUsers,
        notification: { created: sizes.activeUsers },
        email: { queued: sizes.activeUsers },
      }),
  },
  {
    // Back and forth between the two plans, so every repetition moves every subscription.
    name: 'op 21: migrate subscriptions (local provider)',
    targetSeconds: 3,
    request: ({ adminToken }, repetition) => {
      const [from, to] =
        repetition % 2 === 0
          ? [PLAN_PRODUCTS.current, PLAN_PRODUCTS.next]
          : [PLAN_PRODUCTS.next, PLAN_PRODUCTS.current];
      return {
        method: 'POST',
        path: '/v1/admin/plans/subscribers/migrate',
        token: adminToken,
        timeoutMs: BULK_TIMEOUT_MS,
        body: { fromProductId: from.id, toProductId: to.id, newProviderPriceId: to.priceId, confirm: true },
      };
    },
    check: (answer, sizes) =>
      expectOk(answer, { migrated: sizes.localSubscriptions, failed: 0, total: sizes.localSubscriptions }),
  },
];

export interface BulkTiming {
  name: string;
  targetSeconds: number;
  /** Every repetition's wall-clock seconds, in order. */
  seconds: number[];
  /** Why an answer was wrong; null when every one was right. */
  problem: string | null;
}

async function timeBulkOperation(
  operation: BulkOperation,
  context: BenchContext,
  repetitions: number,
): Promise<BulkTiming> {
  const seconds: number[] = [];
  for (let repetition = 0; repetition < repetitions; repetition += 1) {
    const request = operation.request(context, repetition);
    const answer = await call(context.baseUrl, request);
    const problem = operation.check(answer, context.sizes);
    if (problem !== null)
      return {
        name: operation.name,
        targetSeconds: operation.targetSeconds,
        seconds,
        problem: `repetition ${repetition + 1}: ${problem}`,
      };
    seconds.push(answer.ms / 1_000);
  }
  return { name: operation.name, targetSeconds: operation.targetSeconds, seconds, problem: null };
}

/**
 * Times the repetitions, with the CPU and memory they used; then a second's pause, since the mail dispatcher keeps
 * working on what a broadcast queued.
 */
export async function measureBulkOperation(
  operation: BulkOperation,
  context: BenchContext,
  cpu: CpuMeter,
  memory: RssMonitor,
  repetitions: number,
): Promise<BulkOutcome> {
  const endMemory = memory.window();
  const cpuWindow = await cpu.window();
  const timing = await timeBulkOperation(operation, context, repetitions);
  const used = await cpuWindow.end();
  const peakRssMb = endMemory();
  const runs = Math.max(1, timing.seconds.length);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return {
    timing,
    peakRssMb,
    cpuMsPerRun: { service: used.serviceMs / runs, database: used.databaseMs === null ? null : used.databaseMs / runs },
  };
}
