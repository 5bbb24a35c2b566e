import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

/** The local provider's billing portal: the URL portal-session hands out opens a real page. */

let t: TestApp;
let player: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  player = await createUser(t.db);
});

afterAll(async () => {
  await t.close();
});

describe('local billing portal', () => {
  it('portal-session points at a page this service serves, which links back to return_url', async () => {
    const session = await t.request({
      method: 'POST',
      url: '/v1/me/billing/portal-session',
      token: player.token,
      payload: { return_url: 'https://play.example.test/account?tab=billing&x="<y>"' },
    });
    expect(session.statusCode, session.body).toBe(200);
    const url = new URL(session.json().url as string);
    expect(url.origin).toBe('http://platform.test');
    const page = await t.request({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(
      '<a href="https://play.example.test/account?tab=billing&amp;x=&quot;&lt;y&gt;&quot;">Back</a>',
    );
  });

  it('refuses a return_url that is not http(s)', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/v1/public/billing/local/portal?return_url=${encodeURIComponent('javascript:alert(1)')}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.name).toBe('SchemaError');
  });
});
