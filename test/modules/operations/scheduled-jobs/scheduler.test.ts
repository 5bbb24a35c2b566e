import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../../src/db/database.js';
import type { JobHandler, JobHandlers } from '../../../../src/kernel/areas/jobs.js';
import { DrainState } from '../../../../src/kernel/drain.js';
import { JOB_HANDLERS } from '../../../../src/modules/index.js';
import { JobScheduler } from '../../../../src/modules/operations/scheduled-jobs/scheduler.js';
import { eventually } from '../../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';

/**
 * The scheduler itself, on a real database and without an app (so no background poll races the
 * clock these tests choose; one database, reset before each test): claiming, recording, next-run computation, the seeded jobs' work.
 * Clocks sit in 2100 so the jobs made due here are never due for a real-time scheduler.
 */

const T0 = new Date('2100-01-01T00:00:00.000Z');
const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs);
const MINUTE = 60_000;
const DAY = 86_400_000;
const SEEDED_KEYS = ['expire-role-grants', 'purge-event-outbox'];

type Db = Database['db'];

let testDb: TestDatabase;
let db: Db;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.database.db;
});
afterAll(async () => testDb.drop());

/** Each test starts from the migrated state: the two seeded jobs never run, no other job, no run. */
beforeEach(async () => {
  await db.deleteFrom('scheduled_job_runs').execute();
  await db.deleteFrom('scheduled_jobs').where('key', 'not in', SEEDED_KEYS).execute();
  await db
    .updateTable('scheduled_jobs')
    .set({ active: true, next_run_at: null, last_run_at: null, last_result: null, last_error: null })
    .execute();
});

async function insertJob(key: string, values: { cron?: string; active?: boolean; next_run_at?: Date | null } = {}) {
  return db
    .insertInto('scheduled_jobs')
    .values({
      key,
      cron: values.cron ?? '*/5 * * * *',
      description: `test job ${key}`,
      active: values.active ?? true,
      next_run_at: values.next_run_at ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

const jobByKey = (key: string) =>
  db.selectFrom('scheduled_jobs').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
const runsOf = (jobId: number) =>
  db.selectFrom('scheduled_job_runs').selectAll().where('job_id', '=', jobId).orderBy('id').execute();
const allRuns = () => db.selectFrom('scheduled_job_runs').selectAll().orderBy('id').execute();

function scheduler(handlers: JobHandlers = JOB_HANDLERS, options: { instanceId?: string; on?: Db } = {}) {
  return new JobScheduler({ db: options.on ?? db, handlers, instanceId: options.instanceId ?? 'instance-test' });
}

describe('seeded jobs', () => {
  it('are seeded with a handler each and a usable cron, and a first look schedules them at their next occurrence', async () => {
    const seeded = await db
      .selectFrom('scheduled_jobs')
      .select(['id', 'key', 'cron', 'active', 'next_run_at', 'last_run_at', 'last_result'])
      .orderBy('id')
      .execute();
    expect(seeded).toEqual([
      {
        id: 1,
        key: 'expire-role-grants',
        cron: '*/15 * * * *',
        active: true,
        next_run_at: null,
        last_run_at: null,
        last_result: null,
      },
      {
        id: 2,
        key: 'purge-event-outbox',
        cron: '30 3 * * *',
        active: true,
        next_run_at: null,
        last_run_at: null,
        last_result: null,
      },
    ]);
    for (const job of seeded) expect(Object.hasOwn(JOB_HANDLERS, job.key)).toBe(true);

    // Not due on first sight: a fresh deployment waits for each job's next occurrence.
    expect(await scheduler().runDueJobs(at(7 * MINUTE))).toEqual([]);
    expect((await jobByKey('expire-role-grants')).next_run_at).toEqual(at(15 * MINUTE));
    expect((await jobByKey('purge-event-outbox')).next_run_at).toEqual(new Date('2100-01-01T03:30:00.000Z'));
    expect(await allRuns()).toEqual([]);
  });

  it('expire-role-grants deletes only grants past expires_at and counts them in the run', async () => {
    const role = await db
      .insertInto('roles')
      .values({ key: 'temp', name: 'Temporary' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const grants = { expired: at(-MINUTE), justNow: at(0), later: at(DAY), permanent: null } as const;
    const users: Record<string, string> = {};
    for (const [name, expiresAt] of Object.entries(grants)) {
      users[name] = randomUUID();
      await db
        .insertInto('users')
        .values({ id: users[name]!, email: `${name}@example.test` })
        .execute();
      await db
        .insertInto('user_roles')
        .values({ user_id: users[name]!, role_id: role.id, granted_by: null, reason: null, expires_at: expiresAt })
        .execute();
    }
    await db
      .updateTable('scheduled_jobs')
      .set({ next_run_at: at(0) })
      .where('key', '=', 'expire-role-grants')
      .execute();

    const [run, ...more] = await scheduler().runDueJobs(at(0));
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      trigger: 'schedule',
      result: 'ok',
      summary: { deleted: 2 },
      error: null,
      instance_id: 'instance-test',
      started_at: at(0),
    });
    const left = await db.selectFrom('user_roles').select('user_id').where('role_id', '=', role.id).execute();
    expect(left.map((row) => row.user_id).sort()).toEqual([users.later, users.permanent].sort());
    expect(await db.selectFrom('audit_log').selectAll().execute()).toEqual([]);
  });

  it('purge-event-outbox deletes only events older than 7 days', async () => {
    const ages = { old: 8 * DAY, edge: 7 * DAY + 1, recent: 7 * DAY - 1, fresh: 0 };
    for (const [name, age] of Object.entries(ages)) {
      await db
        .insertInto('event_outbox')
        .values({ kind: 'dashboard', name, payload: '{}', created_at: at(-age) })
        .execute();
    }
    await db
      .updateTable('scheduled_jobs')
      .set({ next_run_at: at(0) })
      .where('key', '=', 'purge-event-outbox')
      .execute();

    const runs = await scheduler().runDueJobs(at(0));
    expect(runs.map((run) => [run.result, run.summary])).toEqual([['ok', { deleted: 2 }]]);
    const left = await db
      .selectFrom('event_outbox')
      .select('name')
      .where('name', 'in', Object.keys(ages))
      .orderBy('name')
      .execute();
    expect(left.map((row) => row.name)).toEqual(['fresh', 'recent']);
    expect((await jobByKey('purge-event-outbox')).next_run_at).toEqual(new Date('2100-01-01T03:30:00.000Z'));
  });
});

describe('running due jobs', () => {
  it('two instances polling at once run each due job exactly once, and record who ran it', async () => {
    const other = await testDb.openAnother();
    const calls = new Map<string, number>();
    // Slow enough that both instances are claiming while the other is mid-run.
    const counting =
      (key: string): JobHandler =>
      async () => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { key };
      };
    const keys = ['count-1', 'count-2', 'count-3', 'count-4', 'count-5', 'count-6'];
    const handlers = { ...JOB_HANDLERS, ...Object.fromEntries(keys.map((key) => [key, counting(key)])) };
    for (const key of keys) await insertJob(key, { next_run_at: at(0) });
    await db
      .updateTable('scheduled_jobs')
      .set({ next_run_at: at(0) })
      .where('key', 'in', ['expire-role-grants', 'purge-event-outbox'])
      .execute();
    const a = scheduler(handlers, { instanceId: 'instance-a' });
    const b = scheduler(handlers, { instanceId: 'instance-b', on: other.db });

    const [byA, byB] = await Promise.all([a.runDueJobs(at(MINUTE)), b.runDueJobs(at(MINUTE))]);

    expect(Object.fromEntries(calls)).toEqual(Object.fromEntries(keys.map((key) => [key, 1])));
    const stored = await allRuns();
    expect(stored).toHaveLength(8);
    expect(new Set(stored.map((run) => run.job_id)).size).toBe(8);
    expect([...byA, ...byB].map((run) => run.id).sort()).toEqual(stored.map((run) => run.id).sort());
    expect(
      byA.every((run) => run.instance_id === 'instance-a') && byB.every((run) => run.instance_id === 'instance-b'),
    ).toBe(true);
    if (testDb.url !== null) {
      // On PostgreSQL the two really overlap: SKIP LOCKED lets each take jobs the other holds no lock on.
      expect(byA.length).toBeGreaterThan(0);
      expect(byB.length).toBeGreaterThan(0);
    }
    for (const key of keys) {
      expect(await jobByKey(key)).toMatchObject({
        last_run_at: at(MINUTE),
        last_result: 'ok',
        last_error: null,
        next_run_at: at(5 * MINUTE),
      });
    }

    // Polling again at the same moment finds nothing due.
    expect(await Promise.all([a.runDueJobs(at(MINUTE)), b.runDueJobs(at(MINUTE))])).toEqual([[], []]);
    expect(await allRuns()).toHaveLength(8);
  });

  it('does not run a disabled job, even one whose next run has passed', async () => {
    const calls: string[] = [];
    const recording = (name: string) => async () => {
      calls.push(name);
      return {};
    };
    const handlers = { 'off-job': recording('off'), 'on-job': recording('on') };
    const off = await insertJob('off-job', { active: false, next_run_at: at(0) });
    await insertJob('on-job', { next_run_at: at(0) });
    const before = await jobByKey('off-job');

    const runs = await scheduler(handlers).runDueJobs(at(MINUTE));
    expect(calls).toEqual(['on']);
    expect(runs).toHaveLength(1);
    expect(await runsOf(off.id)).toEqual([]);
    expect(await jobByKey('off-job')).toEqual(before);
  });

  it('a failing handler records error, rolls back its partial work, and still schedules the next run', async () => {
    let fail = true;
    const handlers: JobHandlers = {
      flaky: async (trx) => {
        await trx
          .insertInto('event_outbox')
          .values({ kind: 'dashboard', name: 'partial-work', payload: '{}' })
          .execute();
        if (fail) throw new Error('upstream said no');
        return { wrote: 1 };
      },
    };
    const job = await insertJob('flaky', { next_run_at: at(0) });

    const [failed] = await scheduler(handlers).runDueJobs(at(2 * MINUTE));
    expect(failed).toEqual({
      id: expect.any(Number),
      job_id: job.id,
      trigger: 'schedule',
      triggered_by: null,
      started_at: at(2 * MINUTE),
      finished_at: expect.any(Date),
      result: 'error',
      error: 'upstream said no',
      summary: {},
      instance_id: 'instance-test',
    });
    expect(failed!.finished_at.getTime()).toBeGreaterThanOrEqual(at(2 * MINUTE).getTime());
    expect(await jobByKey('flaky')).toMatchObject({
      last_run_at: at(2 * MINUTE),
      last_result: 'error',
      last_error: 'upstream said no',
      next_run_at: at(5 * MINUTE),
    });
    expect(await db.selectFrom('event_outbox').selectAll().where('name', '=', 'partial-work').execute()).toEqual([]);

    // The next occurrence runs again; success clears the error.
    fail = false;
    expect(await scheduler(handlers).runDueJobs(at(4 * MINUTE))).toEqual([]);
    const [ok] = await scheduler(handlers).runDueJobs(at(5 * MINUTE));
    expect(ok).toMatchObject({ result: 'ok', error: null, summary: { wrote: 1 } });
    expect(await jobByKey('flaky')).toMatchObject({
      last_result: 'ok',
      last_error: null,
      next_run_at: at(10 * MINUTE),
    });
    expect(await db.selectFrom('event_outbox').select('name').where('name', '=', 'partial-work').execute()).toEqual([
      { name: 'partial-work' },
    ]);
    expect((await runsOf(job.id)).map((run) => run.result)).toEqual(['error', 'ok']);
  });

  it('a handler whose SQL fails is recorded too (the savepoint clears the aborted transaction), by SQLSTATE, never with the values', async () => {
    // PostgreSQL's message quotes the value: `invalid input syntax for type integer: "player@example.test"`.
    const handlers: JobHandlers = {
      'bad-sql': async (trx) => {
        await sql`SELECT ${'player@example.test'}::int`.execute(trx);
        return {};
      },
    };
    const job = await insertJob('bad-sql', { next_run_at: at(0) });
    const [run] = await scheduler(handlers).runDueJobs(at(0));
    expect(run).toMatchObject({ result: 'error', error: 'database error 22P02' });
    expect(await runsOf(job.id)).toHaveLength(1);
    expect(await jobByKey('bad-sql')).toMatchObject({
      last_result: 'error',
      last_error: 'database error 22P02',
      next_run_at: at(5 * MINUTE),
    });
  });

  it('a job whose key has no handler fails its runs with a clear error', async () => {
    const job = await insertJob('constructor', { next_run_at: at(0) });
    const [run] = await scheduler().runDueJobs(at(0));
    expect(run).toMatchObject({ job_id: job.id, result: 'error', error: 'no handler for job key "constructor"' });
    expect(await jobByKey('constructor')).toMatchObject({ last_result: 'error', next_run_at: at(5 * MINUTE) });
  });

  it('a job that missed several occurrences runs once and is scheduled after now', async () => {
    let calls = 0;
    await insertJob('late', { next_run_at: at(0) });
    const runs = await scheduler({
      late: async () => {
        calls++;
        return {};
      },
    }).runDueJobs(at(DAY + 7 * MINUTE));
    expect(runs).toHaveLength(1);
    expect(calls).toBe(1);
    expect((await jobByKey('late')).next_run_at).toEqual(at(DAY + 10 * MINUTE));
  });

  it('shows an unusable cron expression on the job instead of scheduling or running it, logging it once', async () => {
    const logged: string[] = [];
    const log = { info() {}, warn() {}, error: (_object: object, message: string) => void logged.push(message) };
    const job = await insertJob('typo', { cron: '61 * * * *' });
    const instance = new JobScheduler({ db, log, handlers: { typo: async () => ({}) } });
    expect(await instance.runDueJobs(at(0))).toEqual([]);
    expect(await instance.runDueJobs(at(MINUTE))).toEqual([]);
    expect(await jobByKey('typo')).toMatchObject({
      next_run_at: null,
      last_result: 'error',
      last_error: expect.stringMatching(/^invalid cron expression "61 \* \* \* \*": .*minute/),
    });
    expect(logged).toHaveLength(1);
    expect(await runsOf(job.id)).toEqual([]);
  });
});

describe('the poll loop', () => {
  it('runs jobs as they fall due without being called, and stops polling on stop()', async () => {
    let calls = 0;
    // Its polls come from an interval the test's clock drives: stopped, none is left to come.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const instance = new JobScheduler({
        db,
        pollMs: 20,
        handlers: {
          tick: async () => {
            calls++;
            return {};
          },
        },
      });
      const job = await insertJob('tick', { next_run_at: new Date(Date.now() - 1_000) });
      await instance.start();
      try {
        await eventually(async () => {
          vi.advanceTimersByTime(20);
          expect(await runsOf(job.id)).toHaveLength(1);
        });
        expect(calls).toBe(1);
      } finally {
        await instance.stop();
      }
      await db
        .updateTable('scheduled_jobs')
        .set({ next_run_at: new Date(Date.now() - 1_000) })
        .where('id', '=', job.id)
        .execute();
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(1_000);
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('once the drain begins no new job starts: the running one finishes and is recorded, the next due one waits', async () => {
    const drain = new DrainState();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const slowStarted = new Promise<void>((resolve) => (started = resolve));
    const ran: string[] = [];
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const instance = new JobScheduler({
        db,
        drain,
        pollMs: 20,
        handlers: {
          slow: async () => {
            started();
            await released;
            ran.push('slow');
            return {};
          },
          quick: async () => {
            ran.push('quick');
            return {};
          },
        },
      });
      // Both due; "slow" is claimed first (the earlier next run).
      const slow = await insertJob('slow', { next_run_at: new Date(Date.now() - 2_000) });
      const quick = await insertJob('quick', { next_run_at: new Date(Date.now() - 1_000) });
      await instance.start();
      try {
        vi.advanceTimersByTime(20);
        await slowStarted;
        drain.begin();
        release();
        await eventually(async () => expect(await runsOf(slow.id)).toHaveLength(1));
        // Polls go on firing while the instance serves out SHUTDOWN_DELAY_MS: none starts a job.
        for (let i = 0; i < 5; i++) {
          vi.advanceTimersByTime(20);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(ran).toEqual(['slow']);
        expect(await runsOf(quick.id)).toEqual([]);
        expect((await jobByKey('quick')).last_run_at).toBeNull();
      } finally {
        await instance.stop();
      }
      expect((await runsOf(slow.id)).map((run) => run.result)).toEqual(['ok']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('schedules newly seeded jobs as soon as it starts', async () => {
    const instance = new JobScheduler({ db, handlers: JOB_HANDLERS });
    const before = Date.now();
    await instance.start();
    await instance.stop();
    const next = (await jobByKey('expire-role-grants')).next_run_at!;
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime()).toBeLessThanOrEqual(before + 15 * MINUTE);
    expect(next.getUTCMinutes() % 15).toBe(0);
    expect(next.getUTCSeconds()).toBe(0);
  });
});
