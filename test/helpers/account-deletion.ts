import { expect } from 'vitest';
import { JobScheduler } from '../../src/modules/operations/scheduled-jobs/scheduler.js';
import { JOB_HANDLERS } from '../../src/modules/index.js';
import { jobServicesOf } from '../../src/modules/operations/scheduled-jobs/job-handlers.js';
import type { TestApp, TestUser } from './app.js';

/** Shared by the account-deletion tests: the mailed code, the stored state, the purge job. */

export const DAY = 86_400_000;

export const start = (t: TestApp, user: TestUser, payload: object = {}) =>
  t.request({ method: 'POST', url: '/v1/me/delete', token: user.token, payload });
export const confirm = (t: TestApp, user: TestUser, code: string) =>
  t.request({ method: 'POST', url: '/v1/me/delete/confirm', token: user.token, payload: { code } });

/** The code in the newest mail queued for the user, read from its text as the player would. */
export async function mailedCode(t: TestApp, userId: string): Promise<string> {
  const mail = await t.db
    .selectFrom('email_messages')
    .select(['text', 'to_email', 'category', 'subject'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  const match = /confirmation code: (\d{8})/.exec(mail.text ?? '');
  expect(match, mail.text ?? '').not.toBeNull();
  return match![1]!;
}

/** A code that is not the user's (the right one plus one, wrapped). */
export const wrongCodeFor = (code: string) => String((Number(code) + 1) % 1e8).padStart(8, '0');

/** Everything a deletion may touch about one user: compared before and after a refusal. */
export async function stateOf(t: TestApp, userId: string) {
  // last_seen_at aside: every signed-in request touches it.
  const user = await t.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirst()
    .then((row) => row && { ...row, last_seen_at: undefined });
  const request = await t.db
    .selectFrom('account_deletion_requests')
    .selectAll()
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const subscriptions = await t.db
    .selectFrom('billing_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  const audit = await t.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id'])
    .where((eb) => eb.or([eb('target_id', '=', userId), eb('actor_id', '=', userId)]))
    .execute();
  const mails = await t.db.selectFrom('email_messages').select('id').where('user_id', '=', userId).execute();
  return { user, request, subscriptions, audit, mails: mails.length };
}

/** The real scheduler with every handler; jobs are scheduled at `from`, then run at a chosen time. */
export async function runJobsAt(t: TestApp, from: Date, at: Date) {
  const scheduler = new JobScheduler({
    db: t.db,
    handlers: JOB_HANDLERS,
    services: jobServicesOf(t.kernel),
    instanceId: 'account-deletion-test',
  });
  await scheduler.scheduleNewJobs(from);
  const job = await t.db
    .selectFrom('scheduled_jobs')
    .select('id')
    .where('key', '=', 'purge-deleted-accounts')
    .executeTakeFirstOrThrow();
  const runs = await scheduler.runDueJobs(at);
  const run = runs.find((candidate) => candidate.job_id === job.id);
  expect(run).toBeDefined();
  return run!;
}
