import { PGlite } from '@electric-sql/pglite';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_TEST_CREDENTIALS, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-server.js';
import { waitFor } from '../helpers/waiting.js';
import { serveBehindIdentity, type ServedBehindIdentity } from './serve-behind-identity.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * SIGTERM to the real `serve` process while its background work is under way, one instance for
 * each kind (on the embedded database every transaction waits for the one before it, so a message
 * being recorded would otherwise wait out the job, and the one drain would hide the other's):
 * - the scheduler running a job (the orphan sweep, listing a slow object store): its run is
 *   recorded before the process exits 0;
 * - the dispatcher sending a message to an SMTP server that holds its answer: the message is
 *   delivered and marked sent before the process exits 0.
 */

/** Per chunk, each way, between the service and the object store: the sweep's two listings take seconds. */
const STORE_LATENCY_MS = 500;
const JOB = 'sweep-orphan-objects';
const TO = 'drained@example.test';

/** The embedded database of an exited instance, for `read`. */
async function readStored<T>(fixture: ServedBehindIdentity, read: (db: PGlite) => Promise<T>): Promise<T> {
  const db = await PGlite.create(join(fixture.dataDir, 'pglite'));
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

/** SIGTERM, and the drain begun (readiness at 503). */
async function terminate({ served }: ServedBehindIdentity): Promise<void> {
  served.child.kill('SIGTERM');
  await waitFor(() => /draining: readiness answers 503/.test(served.output().stdout), 'the drain to begin', {
    timeoutMs: 5_000,
  });
}

/** Exit 0 after a full drain; the process's stdout. */
async function exitedDrained({ served }: ServedBehindIdentity): Promise<string> {
  await waitFor(() => served.child.exitCode !== null, 'the process to exit', { timeoutMs: 15_000 });
  const { stdout, stderr } = served.output();
  expect(served.child.exitCode).toBe(0);
  expect(stdout).toMatch(/"msg":"drained"/);
  expect(stderr).not.toMatch(/unhandled|uncaught/i);
  return stdout;
}

describe('SIGTERM drain of background work', () => {
  let smtp: SmtpTestServer;
  let s3: S3TestServer;
  let storeProxy: TcpProxy;
  let jobInstance: ServedBehindIdentity;
  let mailInstance: ServedBehindIdentity;
  let releaseAnswer: () => void = () => {};
  let answerAsked = false;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    smtp.beforeAnswer = () => {
      answerAsked = true;
      return new Promise((resolve) => (releaseAnswer = resolve));
    };
    s3 = await startS3Server();
    storeProxy = await startTcpProxy({ port: Number(new URL(s3.endpoint).port) });
    storeProxy.latency(STORE_LATENCY_MS);
    // Both start together: the scheduler's first poll (5 s) runs while the other test goes on.
    [jobInstance, mailInstance] = await Promise.all([
      serveBehindIdentity(
        {
          LOG_LEVEL: 'info',
          STORAGE_S3_BUCKET: s3.bucket,
          STORAGE_S3_ENDPOINT: storeProxy.via(s3.endpoint),
          STORAGE_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
          STORAGE_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
        },
        // Due when the instance starts: the scheduler's first poll runs it.
        (db) => db.query(`UPDATE scheduled_jobs SET next_run_at = now() - interval '1 minute' WHERE key = $1`, [JOB]),
      ),
      serveBehindIdentity(
        { LOG_LEVEL: 'info', SMTP_URL: smtp.url },
        // Queued when the instance starts: the dispatcher's first round claims it.
        (db) =>
          db.query(
            `INSERT INTO email_messages (to_email, category, subject, html, text)
             VALUES ($1, 'transactional', 'Drained', '<p>Sent before exit</p>', 'Sent before exit')`,
            [TO],
          ),
      ),
    ]);
    // A start under a loaded machine (the whole suite beside it) can take most of a minute.
  }, 120_000);
  afterAll(async () => {
    releaseAnswer();
    await Promise.all([jobInstance?.close(), mailInstance?.close()]);
    await storeProxy?.close();
    await s3?.close();
    await smtp?.close();
  });

  it('the message being sent to a slow SMTP server is delivered and marked sent before exit 0', async () => {
    await waitFor(() => answerAsked, 'the message at the SMTP server', { timeoutMs: 15_000 });
    await terminate(mailInstance);
    // The SMTP server has not answered yet: the send is still under way.
    expect(smtp.received).toEqual([]);
    expect(mailInstance.served.child.exitCode).toBeNull();
    releaseAnswer();

    await exitedDrained(mailInstance);
    expect(smtp.received.map((mail) => mail.envelope.to)).toEqual([[TO]]);
    const messages = await readStored(mailInstance, (db) =>
      db.query(
        `SELECT status, transport, sent_at IS NOT NULL AS sent, lease_until IS NOT NULL AS leased, attempts
         FROM email_messages WHERE to_email = $1`,
        [TO],
      ),
    );
    expect(messages.rows).toEqual([{ status: 'sent', transport: 'smtp', sent: true, leased: false, attempts: 1 }]);
  }, 60_000);

  it('the scheduled job being run finishes and its run is recorded before exit 0', async () => {
    await waitFor(() => storeProxy.connections > 0, 'the sweep at the object store', { timeoutMs: 15_000 });
    await terminate(jobInstance);
    const stdout = await exitedDrained(jobInstance);
    // In this order: the drain began while the sweep was running; the process ended after it.
    const drainBegan = stdout.indexOf('draining: readiness answers 503');
    const jobRan = stdout.indexOf('"msg":"scheduled job ran"');
    expect(jobRan).toBeGreaterThan(drainBegan);
    expect(stdout.indexOf('"msg":"drained"')).toBeGreaterThan(jobRan);

    const stored = await readStored(jobInstance, async (db) => ({
      runs: (
        await db.query(
          `SELECT r.trigger, r.result, r.summary, r.finished_at >= r.started_at AS finished
           FROM scheduled_job_runs r JOIN scheduled_jobs j ON j.id = r.job_id WHERE j.key = $1`,
          [JOB],
        )
      ).rows,
      job: (await db.query('SELECT last_result FROM scheduled_jobs WHERE key = $1', [JOB])).rows,
    }));
    expect(stored).toEqual({
      runs: [{ trigger: 'schedule', result: 'ok', summary: { orphans_deleted: 0 }, finished: true }],
      job: [{ last_result: 'ok' }],
    });
  }, 60_000);
});
