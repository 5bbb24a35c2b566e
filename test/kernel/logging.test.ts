import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/kernel/logging.js';
import { signUnsubscribeToken } from '../../src/modules/email/unsubscribe-token.js';
import { createUser, startTestApp, type TestApp } from '../helpers/app.js';
import { captureLog, type CapturedLog } from '../helpers/captured-log.js';

/** Credentials that travel in URLs (unsubscribe tokens, realtime tickets) never reach a log line. */

describe('redactUrl', () => {
  it('censors token and ticket values wherever they stand in the query, and nothing else', () => {
    expect(redactUrl('/v1/public/email/unsubscribe?token=u1.abc.def')).toBe('/v1/public/email/unsubscribe?token=[redacted]');
    expect(redactUrl('/v1/realtime?x=1&ticket=abc&TICKET=z#f')).toBe('/v1/realtime?x=1&ticket=[redacted]&TICKET=[redacted]#f');
    expect(redactUrl('/v1/admin/users?q=token&page=2')).toBe('/v1/admin/users?q=token&page=2');
  });
});

describe('request log lines', () => {
  let captured: CapturedLog;
  let t: TestApp;
  beforeAll(async () => {
    captured = captureLog();
    t = await startTestApp({ log: captured.log });
  });
  afterAll(async () => { await t.close(); });

  it('show the route with the credential censored', async () => {
    const token = signUnsubscribeToken(t.kernel.emailTokenKey, { email: 'someone@example.test', messageId: null });
    await t.request({ method: 'GET', url: `/v1/public/email/unsubscribe?token=${encodeURIComponent(token)}` });
    const player = await createUser(t.db);
    const ticket = (await t.request({ method: 'GET', url: '/v1/me/realtime', token: player.token })).json().ticket as string;
    await t.request({ method: 'GET', url: `/v1/realtime?ticket=${encodeURIComponent(ticket)}` });
    const text = captured.text();
    expect(text).toContain('/v1/public/email/unsubscribe?token=[redacted]');
    expect(text).toContain('/v1/realtime?ticket=[redacted]');
    for (const secret of [token, encodeURIComponent(token), ticket, encodeURIComponent(ticket), player.token]) expect(text).not.toContain(secret);
  });
});
