import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import {
  createLogger,
  prettyDestination,
  prettyLogs,
  redactUrl,
  serializeError,
} from '../../../src/kernel/http/logging.js';
import { signUnsubscribeToken } from '../../../src/modules/email/unsubscribe-token.js';
import { createUser, startTestApp, type TestApp } from '../../helpers/app.js';
import { captureLog, type CapturedLog } from '../../helpers/captured-log.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { pathOf, setAvatar, startStorageApp } from '../../helpers/uploads.js';

/** Credentials that travel in URLs (unsubscribe tokens, realtime tickets) never reach a log line. */

describe('redactUrl', () => {
  it('censors token and ticket values wherever they stand in the query, and nothing else', () => {
    expect(redactUrl('/v1/public/email/unsubscribe?token=u1.abc.def')).toBe(
      '/v1/public/email/unsubscribe?token=[redacted]',
    );
    expect(redactUrl('/v1/realtime?x=1&ticket=abc&TICKET=z#f')).toBe(
      '/v1/realtime?x=1&ticket=[redacted]&TICKET=[redacted]#f',
    );
    expect(redactUrl('/v1/admin/users?q=token&page=2')).toBe('/v1/admin/users?q=token&page=2');
  });

  it('censors every credential-bearing parameter of the one list: signatures of stored objects, S3 presigned credentials, OAuth names', () => {
    expect(redactUrl('/v1/public/storage/o?key=avatars/a.png&expires=9&sig=abc123')).toBe(
      '/v1/public/storage/o?key=avatars/a.png&expires=9&sig=[redacted]',
    );
    expect(
      redactUrl(
        '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=f00d&X-Amz-Security-Token=t0k',
      ),
    ).toBe(
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Security-Token=[redacted]',
    );
    expect(redactUrl('/cb?code=c0de&state=s&access_token=a&refresh_token=r')).toBe(
      '/cb?code=[redacted]&state=s&access_token=[redacted]&refresh_token=[redacted]',
    );
  });
});

describe('request log lines', () => {
  let captured: CapturedLog;
  let t: TestApp;
  beforeAll(async () => {
    captured = captureLog();
    t = await startTestApp({ log: captured.log });
  });
  afterAll(async () => {
    await t.close();
  });

  it('show the route with the credential censored', async () => {
    const token = signUnsubscribeToken(t.kernel.signingKey, { email: 'someone@example.test', messageId: null });
    await t.request({ method: 'GET', url: `/v1/public/email/unsubscribe?token=${encodeURIComponent(token)}` });
    const player = await createUser(t.db);
    const ticket = (await t.request({ method: 'GET', url: '/v1/me/realtime', token: player.token })).json()
      .ticket as string;
    await t.request({ method: 'GET', url: `/v1/realtime?ticket=${encodeURIComponent(ticket)}` });
    const text = captured.text();
    expect(text).toContain('/v1/public/email/unsubscribe?token=[redacted]');
    expect(text).toContain('/v1/realtime?ticket=[redacted]');
    for (const secret of [token, encodeURIComponent(token), ticket, encodeURIComponent(ticket), player.token])
      expect(text).not.toContain(secret);
  });
});

describe('what reaches the log', () => {
  let captured: CapturedLog;
  let t: Awaited<ReturnType<typeof startStorageApp>>;
  beforeAll(async () => {
    captured = captureLog();
    t = await startStorageApp({
      log: captured.log,
      extraRoutes: (app, kernel) => {
        // A bug that ends on a database error holding a player's address in its message and detail.
        app.get('/test/duplicate-email', async () => {
          await kernel.db.insertInto('roles').values({ key: 'dup-role-logged', name: 'player@example.test' }).execute();
          return kernel.db
            .insertInto('roles')
            .values({ key: 'dup-role-logged', name: 'player@example.test' })
            .execute();
        });
        app.get('/test/bad-cast', async () => sql`SELECT ${'player@example.test'}::uuid`.execute(kernel.db));
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('signed storage URLs (upload and download) appear without their signatures', async () => {
    const player = await createUser(t.db);
    const { avatarUrl } = await setAvatar(t, player, 'image/png', IMAGE_BYTES['image/png']);
    expect((await t.request({ method: 'GET', url: pathOf(avatarUrl) })).statusCode).toBe(200);
    const signatures =
      captured
        .lines()
        .join('\n')
        .match(/sig=[^&"\s]+/g) ?? [];
    expect(signatures.length).toBeGreaterThanOrEqual(2);
    expect(new Set(signatures)).toEqual(new Set(['sig=[redacted]']));
    expect(captured.text()).not.toContain(new URL(avatarUrl).searchParams.get('sig')!);
  });

  it('a database error is logged by SQLSTATE, table and constraint, never with the values it was raised on', async () => {
    for (const url of ['/test/duplicate-email', '/test/bad-cast']) {
      const response = await t.request({ method: 'GET', url });
      expect(response.statusCode).toBe(500);
    }
    const errors = captured
      .lines()
      .map((line) => JSON.parse(line) as { msg?: string; err?: Record<string, unknown> })
      .filter((line) => line.msg === 'unhandled error');
    expect(errors.map((line) => line.err)).toEqual([
      expect.objectContaining({
        type: 'DatabaseError',
        code: '23505',
        table: 'roles',
        constraint: expect.stringContaining('key'),
      }),
      expect.objectContaining({ type: 'DatabaseError', code: '22P02' }),
    ]);
    expect(captured.text()).not.toContain('player@example.test');
  });
});

describe('log lines a person can read', () => {
  const linesOf = async (write: (log: ReturnType<typeof createLogger>) => void): Promise<string> => {
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    const log = createLogger('info', prettyDestination(output));
    write(log);
    await new Promise((resolve) => setImmediate(resolve));
    return Buffer.concat(chunks).toString('utf8');
  };

  it('are pretty on a terminal outside production, JSON everywhere else, and as LOG_FORMAT says when set', () => {
    expect(prettyLogs('auto', false, true)).toBe(true);
    expect(prettyLogs('auto', true, true)).toBe(false);
    expect(prettyLogs('auto', false, false)).toBe(false);
    expect(prettyLogs('pretty', true, false)).toBe(true);
    expect(prettyLogs('json', false, true)).toBe(false);
  });

  it('pretty output is text, not JSON, and still censors credentials', async () => {
    const text = await linesOf((log) =>
      log.info({ headers: { authorization: 'Bearer s3cr3t-token' } }, 'rate-limit store is back'),
    );
    expect(text).toContain('rate-limit store is back');
    expect(text).toContain('INFO');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).not.toContain('s3cr3t-token');
  });
});

describe('errors in log lines', () => {
  it('carry their type, message and cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });
    const shown = serializeError(new TypeError('could not count', { cause })) as Record<string, unknown>;
    expect(shown).toMatchObject({ type: 'TypeError', message: 'could not count' });
    expect(shown.cause).toMatchObject({
      type: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:6390',
      code: 'ECONNREFUSED',
    });
  });

  it('thrown values that are no Error still say what they were, never an empty "Object"', () => {
    expect(serializeError({ message: 'Connection is closed.', command: 'EVAL' })).toEqual({
      type: 'Object',
      message: 'Connection is closed.',
    });
    expect(serializeError({ status: 'end' })).toEqual({ type: 'Object', message: '{"status":"end"}' });
    expect(serializeError('timeout')).toEqual({ type: 'string', message: 'timeout' });
    expect(serializeError(null)).toEqual({ type: 'null', message: 'null' });
  });
});
