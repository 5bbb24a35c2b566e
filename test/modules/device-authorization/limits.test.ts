import { describe, expect, it } from 'vitest';
import { createUser } from '../../helpers/app.js';
import { appInFrozenMinute } from '../../helpers/frozen-minute.js';
import { DEVICE_GRANT, oauthAnswer, poll, requestCodes } from './fixtures.js';

/** The spec's limits: code 3/60 s per IP (429), token 30/60 s per IP (400 slow_down with an interval), approve 5/60 s per user. */

describe('rate limits', () => {
  const frozen = appInFrozenMinute();

  it('POST /v1/public/device/code: the 4th from one address is 429 rate_limited and stores nothing; another address passes', async () => {
    const t = frozen.app();
    for (let i = 0; i < 3; i++) await requestCodes(t, { client_id: 'launcher' }, '10.1.0.1');
    const count = () => t.db.selectFrom('device_authorizations').select('id').execute();
    const stored = (await count()).length;
    const refused = await t.request({
      method: 'POST',
      url: '/v1/public/device/code',
      remoteAddress: '10.1.0.1',
      payload: { client_id: 'launcher' },
    });
    expect(oauthAnswer(refused)).toEqual({ status: 429, body: { error: 'rate_limited' } });
    expect(refused.headers['retry-after']).toBe('50');
    expect(await count()).toHaveLength(stored);
    await requestCodes(t, { client_id: 'launcher' }, '10.1.0.2');
  });

  it('POST /v1/public/device/token: the 31st from one address is 400 slow_down with the interval until the minute ends', async () => {
    const t = frozen.app();
    const fields = { grant_type: DEVICE_GRANT, device_code: 'unknown', client_id: 'launcher' };
    for (let i = 0; i < 30; i++)
      expect((await poll(t, fields, '10.1.1.1')).json()).toMatchObject({ error: 'invalid_grant' });
    const refused = await poll(t, fields, '10.1.1.1');
    expect(oauthAnswer(refused)).toEqual({
      status: 400,
      body: { error: 'slow_down', error_description: 'too many requests from this address', interval: 50 },
    });
    expect(refused.headers['retry-after']).toBe('50');
    expect((await poll(t, fields, '10.1.1.2')).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('POST /v1/me/device/approve: wrong codes count; the 6th in a minute is 429 even with the right code', async () => {
    const t = frozen.app();
    const player = await createUser(t.db);
    const codes = await requestCodes(t, { client_id: 'launcher' }, '10.1.2.1');
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await t.request({
            method: 'POST',
            url: '/v1/me/device/approve',
            token: player.token,
            payload: { user_code: `BCDF-GHJ${'KLMNP'[i]}`, action: 'approve' },
          })
        ).statusCode,
      ).toBe(404);
    }
    const refused = await t.request({
      method: 'POST',
      url: '/v1/me/device/approve',
      token: player.token,
      payload: { user_code: codes.user_code, action: 'approve' },
    });
    expect(oauthAnswer(refused)).toEqual({ status: 429, body: { error: 'rate_limited' } });
    expect(
      await t.db
        .selectFrom('device_authorizations')
        .select('status')
        .where('user_code', '=', codes.user_code.replace('-', ''))
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: 'pending' });
    // Per user: another player is not held up by this one's guesses.
    const other = await createUser(t.db);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/v1/me/device/approve',
          token: other.token,
          payload: { user_code: codes.user_code, action: 'inspect' },
        })
      ).statusCode,
    ).toBe(200);
  });
});
