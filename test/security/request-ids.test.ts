import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { captureLog, type CapturedLog } from '../helpers/captured-log.js';

/**
 * A caller's `X-Request-Id` is its own correlation handle, never the service's record: two staff
 * members sending the same id (one copying the other's, to make their audit entries collide) get
 * audit rows under ids the service made, each findable from the caller's id through the log.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('a client-chosen X-Request-Id', () => {
  let t: TestApp;
  let captured: CapturedLog;
  let alice: TestUser;
  let mallory: TestUser;
  beforeAll(async () => {
    captured = captureLog();
    t = await startTestApp({ log: captured.log });
    alice = await createUser(t.db, ['roles.write']);
    mallory = await createUser(t.db, ['roles.write']);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is echoed and logged, but two requests sending the same one get two audit rows with distinct service-made ids', async () => {
    const created = [];
    for (const [caller, key] of [
      [alice, 'rid-alice'],
      [mallory, 'rid-mallory'],
    ] as const) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: caller.token,
        headers: { 'x-request-id': 'abc' },
        payload: { key, name: key },
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.headers['x-request-id']).toBe('abc');
      created.push(response.json().id as string);
    }

    const rows = await t.db
      .selectFrom('audit_log')
      .select(['request_id', 'actor_id', 'target_id'])
      .where('action', '=', 'roles.create')
      .where('target_id', 'in', created)
      .execute();
    expect(rows).toHaveLength(2);
    const ids = rows.map((row) => row.request_id);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
    expect(await t.db.selectFrom('audit_log').select('id').where('request_id', '=', 'abc').execute()).toEqual([]);

    // Each row is found from the caller's id through the log: its lines name both.
    const lines = captured
      .lines()
      .map((line) => JSON.parse(line) as { request_id?: string; client_request_id?: string })
      .filter((line) => line.client_request_id === 'abc');
    expect(new Set(lines.map((line) => line.request_id))).toEqual(new Set(ids));
  });
});
