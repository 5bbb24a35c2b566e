import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * GET /v1/admin/audit names who acted and what they acted on: `actor_email` and `actor_name`, and
 * `target_label` (a user's email, a role's name), so the console shows names, not ids.
 */
describe('audit log entries name the actor and the target', () => {
  let t: TestApp;
  let staff: TestUser;
  let reader: TestUser;
  let player: TestUser;
  let roleId = '';
  let goneRoleId = '';

  beforeAll(async () => {
    t = await startTestApp();
    staff = await createUser(t.db, ['roles.write', 'users.write', 'ops.panic'], { email: 'names@staff.test' });
    await t.db.updateTable('users').set({ display_name: 'Nora Staff' }).where('id', '=', staff.id).execute();
    reader = await createUser(t.db, ['audit.read']);
    player = await createUser(t.db, [], { email: 'player-names@example.test' });
    const made = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      token: staff.token,
      payload: { key: 'named-role', name: 'Named role' },
    });
    expect(made.statusCode, made.body).toBe(201);
    roleId = made.json().id;
    const gone = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      token: staff.token,
      payload: { key: 'gone-role', name: 'Gone role' },
    });
    goneRoleId = gone.json().id;
    const deleted = await t.request({ method: 'DELETE', url: `/v1/admin/roles/${goneRoleId}`, token: staff.token });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const edited = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { display_name: 'Renamed', reason: 'names test' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const panic = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: staff.token,
      payload: { level: 'degraded', reason: 'names test' },
    });
    expect(panic.statusCode, panic.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const entries = async () => {
    const answer = await t.request({
      method: 'GET',
      url: `/v1/admin/audit?actor_id=${staff.id}&per_page=50`,
      token: reader.token,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data as Array<Record<string, unknown>>;
  };

  it.each([
    {
      scenario: 'a user target by its email',
      action: 'users.update',
      target: () => player.id,
      label: 'player-names@example.test',
    },
    { scenario: 'a role target by its name', action: 'roles.create', target: () => roleId, label: 'Named role' },
    { scenario: 'a role deleted since: no label', action: 'roles.delete', target: () => goneRoleId, label: null },
    { scenario: 'another target type: no label', action: 'ops.panic.set', target: () => 'global', label: null },
  ])('labels $scenario', async ({ action, target, label }) => {
    const entry = (await entries()).find((each) => each.action === action && each.target_id === target());
    expect(entry).toMatchObject({
      actor_id: staff.id,
      actor_email: 'names@staff.test',
      actor_name: 'Nora Staff',
      target_label: label,
    });
  });

  it.each([
    { scenario: 'a guest', token: undefined, status: 401 },
    { scenario: 'staff without audit.read', token: () => player.token, status: 403 },
    { scenario: 'staff with audit.read', token: () => reader.token, status: 200 },
  ])('answers $scenario with $status', async ({ token, status }) => {
    const answer = await t.request({ method: 'GET', url: '/v1/admin/audit', token: token?.() });
    expect(answer.statusCode, answer.body).toBe(status);
  });
});
