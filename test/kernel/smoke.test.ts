import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp } from '../helpers/app.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves /health and an admin route with a real token', async () => {
    const health = await t.request({ method: 'GET', url: '/health' });
    expect(health.json()).toEqual({ status: 'ok', database: 'ok' });
    const owner = await createUser(t.db, ['*']);
    const roles = await t.request({ method: 'GET', url: '/v1/admin/roles', token: owner.token });
    expect(roles.statusCode).toBe(200);
    expect(roles.json().meta.total).toBe(2);
  });
});
