import { createHash, randomUUID } from 'node:crypto';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestApp, type TestUser } from '../../../helpers/app.js';
import { IMAGE_BYTES } from '../../../helpers/images.js';
import { putBytes, requestUpload, setAvatar, startStorageApp } from '../../../helpers/uploads.js';

/**
 * The clean-up jobs of player sign-ins and uploads, run as staff run them
 * (POST /v1/admin/system/cron/{id}/run, which uses the service's clock): so the rows and files
 * they must remove are dated in the past, and the ones they must keep are kept.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms);

let t: TestApp & { storageDir: string };
let operator: TestUser;

beforeAll(async () => {
  t = await startStorageApp();
  operator = await createUser(t.db, ['settings.write']);
});
afterAll(async () => t.close());

async function runJob(key: string): Promise<Record<string, unknown>> {
  const job = await t.db.selectFrom('scheduled_jobs').select('id').where('key', '=', key).executeTakeFirstOrThrow();
  const response = await t.request({
    method: 'POST',
    url: `/v1/admin/system/cron/${job.id}/run`,
    token: operator.token,
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toMatchObject({ result: 'ok', error: null });
  return response.json().summary;
}

describe('purge-device-authorizations', () => {
  let serial = 0;
  /** A device authorization row as the flow leaves it (setup, not under test). */
  async function device(values: {
    status?: 'pending' | 'approved' | 'denied';
    expiresAt: Date;
    redeemed?: boolean;
    revokedAt?: Date | null;
    userId?: string;
  }) {
    serial++;
    const userCode = String.fromCharCode(...Array.from({ length: 8 }, (_, i) => 65 + ((serial * 7 + i * 3) % 26)));
    const decided = values.status !== undefined && values.status !== 'pending';
    const row = await t.db
      .insertInto('device_authorizations')
      .values({
        client_id: 'launcher',
        device_code_hash: createHash('sha256').update(randomUUID()).digest('hex'),
        user_code: userCode,
        status: values.status ?? 'pending',
        created_at: new Date(values.expiresAt.getTime() - 600_000),
        expires_at: values.expiresAt,
        interval_seconds: 5,
        user_id: decided ? values.userId : null,
        decided_at: decided ? values.expiresAt : null,
        redeemed_at: values.redeemed === true ? values.expiresAt : null,
        session_id: values.redeemed === true ? `device-${randomUUID()}` : null,
        revoked_at: values.revokedAt ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const remaining = async (ids: string[]) =>
    (await t.db.selectFrom('device_authorizations').select('id').where('id', 'in', ids).execute())
      .map((row) => row.id)
      .sort();

  it('deletes codes a day past expiry that never became a device, and devices revoked over 30 days ago; keeps the rest', async () => {
    const user = await createUser(t.db);
    const gone = [
      await device({ expiresAt: ago(DAY + HOUR) }),
      await device({ status: 'denied', userId: user.id, expiresAt: ago(2 * DAY) }),
      await device({ status: 'approved', userId: user.id, expiresAt: ago(2 * DAY) }),
      await device({
        status: 'approved',
        userId: user.id,
        expiresAt: ago(40 * DAY),
        redeemed: true,
        revokedAt: ago(31 * DAY),
      }),
    ];
    const kept = [
      await device({ expiresAt: ago(HOUR) }),
      await device({ expiresAt: new Date(Date.now() + 600_000) }),
      await device({ status: 'approved', userId: user.id, expiresAt: ago(90 * DAY), redeemed: true }),
      await device({
        status: 'approved',
        userId: user.id,
        expiresAt: ago(40 * DAY),
        redeemed: true,
        revokedAt: ago(29 * DAY),
      }),
    ];
    expect(await runJob('purge-device-authorizations')).toEqual({ expired_codes: 3, revoked_devices: 1 });
    expect(await remaining([...gone, ...kept])).toEqual([...kept].sort());
  });
});

describe('prune-login-sessions', () => {
  it('forgets sessions unseen for 90 days and keeps their revocations', async () => {
    const user = await createUser(t.db);
    const session = (id: string, lastSeen: Date) => ({
      user_id: user.id,
      session_id: id,
      first_seen_at: lastSeen,
      last_seen_at: lastSeen,
    });
    await t.db
      .insertInto('login_sessions')
      .values([session('stale', ago(91 * DAY)), session('recent', ago(89 * DAY))])
      .execute();
    await t.db
      .insertInto('revoked_sessions')
      .values({ user_id: user.id, session_id: 'stale', revoked_by: user.id })
      .execute();
    expect(await runJob('prune-login-sessions')).toEqual({ deleted: 1 });
    expect(
      (await t.db.selectFrom('login_sessions').select('session_id').where('user_id', '=', user.id).execute()).map(
        (row) => row.session_id,
      ),
    ).toEqual(['recent']);
    expect(
      await t.db.selectFrom('revoked_sessions').select('session_id').where('user_id', '=', user.id).execute(),
    ).toEqual([{ session_id: 'stale' }]);
  });
});

describe('prune-job-runs', () => {
  it("deletes run records started over 90 days ago, of every job, and keeps the rest and each job's last outcome", async () => {
    const jobs = await t.db
      .selectFrom('scheduled_jobs')
      .select(['id', 'key'])
      .where('key', 'in', ['expire-role-grants', 'purge-event-outbox'])
      .orderBy('key')
      .execute();
    const run = (jobId: number, startedAt: Date) => ({
      job_id: jobId,
      trigger: 'schedule' as const,
      triggered_by: null,
      started_at: startedAt,
      finished_at: startedAt,
      result: 'ok' as const,
      error: null,
      summary: '{}',
      instance_id: 'old-instance',
    });
    await t.db
      .insertInto('scheduled_job_runs')
      .values(jobs.flatMap((job) => [run(job.id, ago(91 * DAY)), run(job.id, ago(89 * DAY))]))
      .execute();
    const lastRunAt = ago(91 * DAY);
    await t.db
      .updateTable('scheduled_jobs')
      .set({ last_run_at: lastRunAt, last_result: 'ok' })
      .where('key', '=', 'expire-role-grants')
      .execute();

    expect(await runJob('prune-job-runs')).toEqual({ deleted: 2 });
    const left = await t.db
      .selectFrom('scheduled_job_runs')
      .select(['job_id', 'started_at'])
      .where('instance_id', '=', 'old-instance')
      .orderBy('job_id')
      .execute();
    expect(left.map((row) => row.job_id)).toEqual(jobs.map((job) => job.id).sort((a, b) => a - b));
    for (const row of left) expect(row.started_at.getTime()).toBeGreaterThan(ago(90 * DAY).getTime());
    const outcome = await t.db
      .selectFrom('scheduled_jobs')
      .select(['last_run_at', 'last_result'])
      .where('key', '=', 'expire-role-grants')
      .executeTakeFirstOrThrow();
    expect(outcome).toEqual({ last_run_at: lastRunAt, last_result: 'ok' });
    // The prune's own run is history like any other.
    const prune = await t.db
      .selectFrom('scheduled_jobs')
      .select('id')
      .where('key', '=', 'prune-job-runs')
      .executeTakeFirstOrThrow();
    const reader = await createUser(t.db, ['settings.read']);
    const history = await t.request({
      method: 'GET',
      url: `/v1/admin/system/cron/${prune.id}/runs`,
      token: reader.token,
    });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data).toEqual([
      expect.objectContaining({ trigger: 'manual', result: 'ok', summary: { deleted: 2 } }),
    ]);
  });
});

describe('storage clean-up', () => {
  const png = IMAGE_BYTES['image/png'];
  const fileOf = (key: string) => join(t.storageDir, key);
  const intent = (key: string) =>
    t.db.selectFrom('storage_uploads').select(['key', 'confirmed_at']).where('key', '=', key).executeTakeFirst();
  /** Dates a stored file back, as if uploaded long ago. */
  const age = (key: string, ms: number) => utimesSync(fileOf(key), ago(ms), ago(ms));

  it('expire-storage-uploads deletes unconfirmed uploads an hour past expiry with their file, and avatars replaced over a day ago', async () => {
    const player = await createUser(t.db);
    // Uploaded but never confirmed, expired two hours ago.
    const abandoned = await requestUpload(t, player, 'image/png', png.length);
    expect((await putBytes(t, abandoned.upload_url, png, abandoned.headers)).statusCode).toBe(204);
    await t.db
      .updateTable('storage_uploads')
      .set({ expires_at: ago(2 * HOUR) })
      .where('key', '=', abandoned.key)
      .execute();
    // Never uploaded, expired half an hour ago: still within the grace hour.
    const recent = await requestUpload(t, player, 'image/png', png.length);
    await t.db
      .updateTable('storage_uploads')
      .set({ expires_at: ago(HOUR / 2) })
      .where('key', '=', recent.key)
      .execute();
    // An avatar replaced two days ago, and the current one set at the same time.
    const replaced = await setAvatar(t, player, 'image/png', png);
    const current = await setAvatar(t, player, 'image/png', png);
    await t.db
      .updateTable('storage_uploads')
      .set({ confirmed_at: ago(2 * DAY) })
      .where('key', 'in', [replaced.key, current.key])
      .execute();

    expect(await runJob('expire-storage-uploads')).toEqual({ retired_uploads: 2, left_for_next_run: 0 });
    expect(await intent(abandoned.key)).toBeUndefined();
    expect(existsSync(fileOf(abandoned.key))).toBe(false);
    expect(await intent(replaced.key)).toBeUndefined();
    expect(await intent(recent.key)).toBeDefined();
    expect(await intent(current.key)).toMatchObject({ key: current.key });
    expect(existsSync(fileOf(current.key))).toBe(true);
    const me = await t.request({ method: 'GET', url: '/v1/me', token: player.token });
    expect(me.json().avatar_url).toEqual(expect.stringContaining(encodeURIComponent(current.key)));
  });

  it("sweep-orphan-objects deletes old files nothing names (a hard-deleted player's avatar), never named or recent ones", async () => {
    const leaving = await createUser(t.db);
    const staying = await createUser(t.db);
    const orphan = await setAvatar(t, leaving, 'image/png', png);
    const kept = await setAvatar(t, staying, 'image/png', png);
    const pending = await requestUpload(t, staying, 'image/png', png.length);
    expect((await putBytes(t, pending.upload_url, png, pending.headers)).statusCode).toBe(204);
    const freshOrphan = await requestUpload(t, leaving, 'image/png', png.length);
    expect((await putBytes(t, freshOrphan.upload_url, png, freshOrphan.headers)).statusCode).toBe(204);
    // The account is hard-deleted: its upload intents go with it (cascade), its files stay behind.
    await t.db.deleteFrom('users').where('id', '=', leaving.id).execute();
    for (const key of [orphan.key, kept.key, pending.key]) age(key, 2 * HOUR);

    const summary = await runJob('sweep-orphan-objects');
    expect(summary).toEqual({ orphans_deleted: 1 });
    expect(existsSync(fileOf(orphan.key))).toBe(false);
    expect(existsSync(fileOf(freshOrphan.key))).toBe(true);
    expect(existsSync(fileOf(kept.key))).toBe(true);
    expect(existsSync(fileOf(pending.key))).toBe(true);
  });
});
