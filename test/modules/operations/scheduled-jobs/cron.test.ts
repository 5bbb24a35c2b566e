import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';

/**
 * The scheduled-job routes: the list, operation 17 (setSystemCronJobActive), the manual run and
 * the run history, through the real app. The seeded jobs are parked in 2100 in beforeAll so the
 * app's own background scheduler (real clock) never runs them under these tests.
 */

const FAR_FUTURE = new Date('2100-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const MAX_INT = 2_147_483_647;

type App = Awaited<ReturnType<typeof startTestApp>>;
type Db = TestApp['db'];

const jobById = (db: Db, id: number) =>
  db.selectFrom('scheduled_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const runsOf = (db: Db, id: number) =>
  db.selectFrom('scheduled_job_runs').selectAll().where('job_id', '=', id).orderBy('id').execute();
const cronAudits = (db: Db) =>
  db.selectFrom('audit_log').selectAll().where('action', 'like', 'system.cron.%').execute();

/** A job no handler knows, disabled, so only a manual run ever runs it (and it fails). */
async function insertOrphanJob(db: Db) {
  return db
    .insertInto('scheduled_jobs')
    .values({ key: `orphan-${randomUUID().slice(0, 8)}`, cron: '0 * * * *', description: 'no handler', active: false })
    .returningAll()
    .executeTakeFirstOrThrow();
}

describe('scheduled job routes', () => {
  let t: App;
  let reader: TestUser;
  let writer: TestUser;
  let bystander: TestUser;
  let expireId: number;
  let purgeId: number;

  beforeAll(async () => {
    t = await startTestApp();
    reader = await createUser(t.db, ['settings.read']);
    writer = await createUser(t.db, ['settings.write']);
    bystander = await createUser(t.db, ['site.read', 'site.write']);
    const seeded = await t.db.selectFrom('scheduled_jobs').select(['id', 'key', 'next_run_at']).orderBy('id').execute();
    expireId = seeded.find((job) => job.key === 'expire-role-grants')!.id;
    purgeId = seeded.find((job) => job.key === 'purge-event-outbox')!.id;
    // The app's onReady started its scheduler, which gave the seeded jobs their first run.
    expect(seeded.every((job) => job.next_run_at !== null && job.next_run_at.getTime() > Date.now() - MINUTE)).toBe(
      true,
    );
    await t.db.updateTable('scheduled_jobs').set({ next_run_at: FAR_FUTURE }).execute();
  });
  afterAll(async () => t.close());

  const patch = (user: TestUser | null, id: number | string, payload: unknown) =>
    t.request({ method: 'PATCH', url: `/v1/admin/system/cron/${id}`, token: user?.token, payload: payload as object });
  const runNow = (user: TestUser | null, id: number | string) =>
    t.request({ method: 'POST', url: `/v1/admin/system/cron/${id}/run`, token: user?.token });
  const history = (user: TestUser | null, id: number | string, query = '') =>
    t.request({ method: 'GET', url: `/v1/admin/system/cron/${id}/runs${query}`, token: user?.token });

  describe('GET /v1/admin/system/cron', () => {
    it('lists every job with its schedule, next and last run', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/admin/system/cron', token: reader.token });
      expect(res.statusCode).toBe(200);
      const jobs = res.json().data as Array<Record<string, unknown>>;
      expect(jobs.slice(0, 2)).toEqual([
        {
          id: expireId,
          key: 'expire-role-grants',
          cron: '*/15 * * * *',
          description: 'Deletes role grants whose expires_at has passed.',
          deletes_data: true,
          active: true,
          next_run_at: FAR_FUTURE.toISOString(),
          last_run_at: null,
          last_result: null,
          last_error: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          id: purgeId,
          key: 'purge-event-outbox',
          cron: '30 3 * * *',
          description: 'Deletes event outbox rows older than 7 days.',
          deletes_data: true,
          active: true,
          next_run_at: FAR_FUTURE.toISOString(),
          last_run_at: null,
          last_result: null,
          last_error: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
    });

    it('says which jobs delete or zero data: a run by hand of one of those cannot be undone', async () => {
      const res = await t.request({ method: 'GET', url: '/v1/admin/system/cron', token: reader.token });
      const jobs = res.json().data as Array<{ key: string; deletes_data: boolean }>;
      const deleting = jobs.filter((job) => job.deletes_data).map((job) => job.key);
      expect(deleting).toEqual(
        expect.arrayContaining([
          'purge-deleted-accounts',
          'expire-credit-lots',
          'sweep-orphan-objects',
          'prune-job-runs',
        ]),
      );
      expect(jobs.find((job) => job.key === 'launch-scheduled-campaigns')?.deletes_data).toBe(false);
    });

    it.each([
      ['no token', null, 401, { error: 'missing_token' }],
      [
        'a caller without settings.read',
        () => bystander,
        403,
        { error: 'forbidden', details: { perm: 'settings.read' } },
      ],
      ['a writer without settings.read', () => writer, 403, { error: 'forbidden', details: { perm: 'settings.read' } }],
    ])('refuses %s', async (_name, who, status, body) => {
      const res = await t.request({ method: 'GET', url: '/v1/admin/system/cron', token: who?.().token });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
    });
  });

  describe('PATCH /v1/admin/system/cron/{id} (operation 17)', () => {
    it('disables a job (no next run) and enables it again at its next occurrence from now, auditing each', async () => {
      const before = await jobById(t.db, purgeId);
      const off = await patch(writer, purgeId, { active: false });
      expect(off.statusCode).toBe(200);
      expect(off.json()).toEqual({ ok: true });
      const disabled = await jobById(t.db, purgeId);
      expect(disabled).toMatchObject({ active: false, next_run_at: null });
      expect(disabled.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
      expect(await auditOf(t.db, requestIdOf(off))).toEqual([
        expect.objectContaining({
          actor_id: writer.id,
          action: 'system.cron.disable',
          target_type: 'scheduled_job',
          target_id: String(purgeId),
          reason: null,
          summary: {
            key: 'purge-event-outbox',
            before: { active: true, next_run_at: FAR_FUTURE.toISOString() },
            after: { active: false, next_run_at: null },
          },
        }),
      ]);

      const on = await patch(writer, purgeId, { active: true });
      expect(on.json()).toEqual({ ok: true });
      const enabled = await jobById(t.db, purgeId);
      const next = enabled.next_run_at!;
      // 03:30 UTC, within the next day: the next occurrence, not one missed while disabled.
      expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([3, 30, 0]);
      expect(next.getTime()).toBeGreaterThan(Date.now());
      expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 60 * MINUTE);
      expect(enabled.active).toBe(true);
      expect(await auditOf(t.db, requestIdOf(on))).toEqual([
        expect.objectContaining({
          actor_id: writer.id,
          action: 'system.cron.enable',
          target_type: 'scheduled_job',
          target_id: String(purgeId),
          summary: {
            key: 'purge-event-outbox',
            before: { active: false, next_run_at: null },
            after: { active: true, next_run_at: next.toISOString() },
          },
        }),
      ]);

      // Asking for the state a job already has changes nothing but is still on record.
      const again = await patch(writer, purgeId, { active: true });
      expect(again.json()).toEqual({ ok: true });
      expect(await jobById(t.db, purgeId)).toEqual(enabled);
      expect(await auditOf(t.db, requestIdOf(again))).toEqual([
        expect.objectContaining({
          action: 'system.cron.enable',
          summary: expect.objectContaining({ before: { active: true, next_run_at: next.toISOString() } }),
        }),
      ]);
    });

    const invalid: Array<[string, string | number, unknown, object]> = [
      ['id 0', 0, { active: false }, { code: 'too_small', path: ['id'], minimum: 1 }],
      ['a negative id', -3, { active: false }, { code: 'too_small', path: ['id'] }],
      ['a fractional id', '1.5', { active: false }, { code: 'invalid_type', path: ['id'], expected: 'int' }],
      ['a non-numeric id', 'abc', { active: false }, { code: 'invalid_type', path: ['id'], expected: 'number' }],
      [
        'an id past the integer range',
        MAX_INT + 1,
        { active: false },
        { code: 'too_big', path: ['id'], maximum: MAX_INT },
      ],
      ['no active', 1, {}, { code: 'invalid_type', path: ['active'], expected: 'boolean' }],
      ['a non-boolean active', 1, { active: 'false' }, { code: 'invalid_type', path: ['active'], expected: 'boolean' }],
      ['an unknown field', 1, { active: false, cron: '* * * * *' }, { code: 'unrecognized_keys', keys: ['cron'] }],
    ];
    it.each(invalid)('400 SchemaError for %s, changing nothing', async (_name, id, payload, issue) => {
      const jobs = await t.db.selectFrom('scheduled_jobs').selectAll().orderBy('id').execute();
      const audits = await cronAudits(t.db);
      const res = await patch(writer, id, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining(issue)] },
      });
      expect(await t.db.selectFrom('scheduled_jobs').selectAll().orderBy('id').execute()).toEqual(jobs);
      expect(await cronAudits(t.db)).toEqual(audits);
    });

    it.each([
      ['an unknown id', () => writer, 999_999, 404, { error: 'not_found', details: { id: 999_999 } }],
      ['the largest id', () => writer, MAX_INT, 404, { error: 'not_found', details: { id: MAX_INT } }],
      ['no token', () => null, 1, 401, { error: 'missing_token' }],
      ['a reader', () => reader, 1, 403, { error: 'forbidden', details: { perm: 'settings.write' } }],
      ['a site editor', () => bystander, 1, 403, { error: 'forbidden', details: { perm: 'settings.write' } }],
    ])('refuses %s (%s), changing nothing', async (_name, who, id, status, body) => {
      const jobs = await t.db.selectFrom('scheduled_jobs').selectAll().orderBy('id').execute();
      const audits = await cronAudits(t.db);
      const res = await patch(who(), id, { active: false });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(await t.db.selectFrom('scheduled_jobs').selectAll().orderBy('id').execute()).toEqual(jobs);
      expect(await cronAudits(t.db)).toEqual(audits);
    });
  });

  describe('POST /v1/admin/system/cron/{id}/run', () => {
    it('runs the job now, answers the run record, keeps the schedule, and audits it', async () => {
      const role = await t.db
        .insertInto('roles')
        .values({ key: `temp-${randomUUID().slice(0, 8)}`, name: 'Temporary' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const expired = await createUser(t.db);
      const current = await createUser(t.db);
      await t.db
        .insertInto('user_roles')
        .values([
          {
            user_id: expired.id,
            role_id: role.id,
            granted_by: null,
            reason: null,
            expires_at: new Date(Date.now() - MINUTE),
          },
          {
            user_id: current.id,
            role_id: role.id,
            granted_by: null,
            reason: null,
            expires_at: new Date(Date.now() + MINUTE),
          },
        ])
        .execute();
      const before = await jobById(t.db, expireId);

      const res = await runNow(writer, expireId);
      expect(res.statusCode).toBe(200);
      const run = res.json();
      expect(run).toEqual({
        id: expect.any(Number),
        job_id: expireId,
        trigger: 'manual',
        triggered_by: writer.id,
        started_at: expect.any(String),
        finished_at: expect.any(String),
        result: 'ok',
        error: null,
        summary: { deleted: 1 },
        instance_id: expect.any(String),
      });
      expect(await t.db.selectFrom('user_roles').select('user_id').where('role_id', '=', role.id).execute()).toEqual([
        { user_id: current.id },
      ]);
      const [stored] = await runsOf(t.db, expireId);
      expect({
        ...stored,
        started_at: stored!.started_at.toISOString(),
        finished_at: stored!.finished_at.toISOString(),
      }).toEqual(run);
      expect(await jobById(t.db, expireId)).toEqual({
        ...before,
        last_run_at: stored!.started_at,
        last_result: 'ok',
        last_error: null,
      });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          actor_id: writer.id,
          action: 'system.cron.run',
          target_type: 'scheduled_job',
          target_id: String(expireId),
          summary: { key: 'expire-role-grants', run_id: run.id, result: 'ok', summary: { deleted: 1 }, error: null },
        }),
      ]);
    });

    it('runs a disabled job too; a failing job is still 200 with result error, recorded on the job', async () => {
      const orphan = await insertOrphanJob(t.db);
      const res = await runNow(writer, orphan.id);
      expect(res.statusCode).toBe(200);
      const error = `no handler for job key "${orphan.key}"`;
      expect(res.json()).toMatchObject({ job_id: orphan.id, trigger: 'manual', result: 'error', error, summary: {} });
      expect(await jobById(t.db, orphan.id)).toMatchObject({
        active: false,
        next_run_at: null,
        last_result: 'error',
        last_error: error,
      });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'system.cron.run',
          summary: expect.objectContaining({ result: 'error', error }),
        }),
      ]);
    });

    it.each([
      ['an unknown id', () => writer, 999_999, 404, { error: 'not_found', details: { id: 999_999 } }],
      ['no token', () => null, 1, 401, { error: 'missing_token' }],
      ['a reader', () => reader, 1, 403, { error: 'forbidden', details: { perm: 'settings.write' } }],
    ])('refuses %s, running nothing', async (_name, who, id, status, body) => {
      const runs = await t.db.selectFrom('scheduled_job_runs').selectAll().orderBy('id').execute();
      const audits = await cronAudits(t.db);
      const res = await runNow(who(), id);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(await t.db.selectFrom('scheduled_job_runs').selectAll().orderBy('id').execute()).toEqual(runs);
      expect(await cronAudits(t.db)).toEqual(audits);
    });

    it('400 SchemaError for an id that is not an integer above 0', async () => {
      const res = await runNow(writer, 0);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.issues).toEqual([expect.objectContaining({ code: 'too_small', path: ['id'] })]);
    });
  });

  describe('GET /v1/admin/system/cron/{id}/runs', () => {
    it("pages a job's runs newest first and filters by result", async () => {
      const orphan = await insertOrphanJob(t.db);
      for (let i = 0; i < 3; i++) expect((await runNow(writer, orphan.id)).statusCode).toBe(200);
      const ids = (await runsOf(t.db, orphan.id)).map((run) => run.id);

      const first = await history(reader, orphan.id, '?per_page=2');
      expect(first.statusCode).toBe(200);
      expect(first.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
      expect(first.json().data.map((run: { id: number }) => run.id)).toEqual([ids[2], ids[1]]);
      const second = await history(reader, orphan.id, '?per_page=2&page=2');
      expect(second.json().data.map((run: { id: number }) => run.id)).toEqual([ids[0]]);
      expect(second.json().data[0]).toMatchObject({
        job_id: orphan.id,
        trigger: 'manual',
        triggered_by: writer.id,
        result: 'error',
      });
      const oldest = await history(reader, orphan.id, '?sort=started_at:asc&per_page=1');
      expect(oldest.json().data.map((run: { id: number }) => run.id)).toEqual([ids[0]]);

      expect((await history(reader, orphan.id, '?result=ok')).json()).toEqual({
        data: [],
        meta: { page: 1, per_page: 25, total: 0 },
      });
      expect((await history(reader, orphan.id, '?result=error')).json().meta.total).toBe(3);
    });

    it('shows an empty history for a job that never ran', async () => {
      const res = await history(reader, purgeId);
      expect(res.json()).toEqual({ data: [], meta: { page: 1, per_page: 25, total: 0 } });
    });

    it.each([
      ['an unknown job', () => reader, '999999', 404, { error: 'not_found', details: { id: 999_999 } }],
      ['no token', () => null, '1', 401, { error: 'missing_token' }],
      [
        'a caller without settings.read',
        () => writer,
        '1',
        403,
        { error: 'forbidden', details: { perm: 'settings.read' } },
      ],
    ])('refuses %s', async (_name, who, id, status, body) => {
      const res = await history(who(), id);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
    });

    it.each([
      ['per_page over 100', '?per_page=101', { code: 'too_big', path: ['per_page'] }],
      ['an unknown result', '?result=maybe', { code: 'invalid_value', path: ['result'] }],
      ['an unknown sort', '?sort=id:asc', { code: 'invalid_format', path: ['sort'] }],
    ])('400 SchemaError for %s', async (_name, query, issue) => {
      const res = await history(reader, 1, query);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.issues).toEqual([expect.objectContaining(issue)]);
    });
  });
});
