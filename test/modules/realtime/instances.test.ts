import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { closedWithin, connected, type RealtimeClient, socketUrl } from './fixtures.js';

/**
 * Two instances of the service on one database, both listening: what happens on one reaches
 * sockets connected to the other (the kernel event bus, over LISTEN/NOTIFY), and a ticket
 * issued by one admits on the other.
 */

let a: TestApp & { testDatabase: Awaited<ReturnType<typeof startTestApp>>['testDatabase'] };
let b: TestApp;
let bClosed = false;
const clients: RealtimeClient[] = [];
let staff: TestUser;
let player: TestUser;
let playerOnB: RealtimeClient;
let staffOnB: RealtimeClient;

beforeAll(async () => {
  a = await startTestApp();
  b = await startTestApp({ database: await a.testDatabase!.openAnother() });
  await a.app.listen({ port: 0, host: '127.0.0.1' });
  await b.app.listen({ port: 0, host: '127.0.0.1' });
  staff = await createUser(a.db, ['audit.read', 'ops.panic', 'announcements.write']);
  player = await createUser(a.db);
  // The staff member's role hears panic changes.
  await a.db
    .insertInto('role_alert_subscriptions')
    .values({
      role_id: (
        await a.db.selectFrom('user_roles').select('role_id').where('user_id', '=', staff.id).executeTakeFirstOrThrow()
      ).role_id,
      alert: 'panic_mode_changed',
    })
    .execute();
  // Tickets come from instance A; the sockets are on instance B.
  playerOnB = await connected(a, player, socketUrl(b));
  staffOnB = await connected(a, staff, socketUrl(b));
  clients.push(playerOnB, staffOnB);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  if (!bClosed) await b.close();
  await a.close();
});

it('a ticket from one instance admits on the other, with its channels', () => {
  expect(staffOnB.frames[0]).toEqual({
    type: 'subscribed',
    channels: [`user:${staff.id}`, 'dashboard', `alerts:test-${staff.id.slice(0, 8)}`],
  });
});

it('a dashboard event published on A reaches a client of B', async () => {
  await a.db
    .transaction()
    .execute((trx) =>
      a.kernel.events.publish(trx, { kind: 'dashboard', name: 'test.cross_instance', payload: { from: 'a' } }),
    );
  expect(await staffOnB.waitFor((frame) => frame.name === 'test.cross_instance')).toMatchObject({
    type: 'event',
    channel: 'dashboard',
    payload: { from: 'a' },
  });
});

it("a broadcast sent through A reaches the player's socket on B", async () => {
  const sent = await a.request({
    method: 'POST',
    url: '/v1/admin/notifications/broadcast',
    token: staff.token,
    payload: { segment: { q: player.id }, notification: { title: 'Across instances' } },
  });
  expect(sent.statusCode, sent.body).toBe(200);
  expect(await playerOnB.waitFor((frame) => frame.type === 'notification')).toMatchObject({
    channel: `user:${player.id}`,
    notification: { title: 'Across instances' },
  });
  expect(await staffOnB.waitFor((frame) => frame.name === 'notifications.broadcast_sent')).toMatchObject({
    channel: 'dashboard',
  });
});

it('a panic alert set on A reaches the socket of a subscribed role on B', async () => {
  try {
    const set = await a.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: staff.token,
      payload: { level: 'degraded', reason: 'two instances' },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(await staffOnB.waitFor((frame) => frame.name === 'panic_mode_changed')).toMatchObject({
      channel: `alerts:test-${staff.id.slice(0, 8)}`,
      payload: { level: 'degraded' },
    });
  } finally {
    await a.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: staff.token,
      payload: { level: 'off', reason: 'two instances done' },
    });
  }
});

it("a role revoked through A takes the dashboard from the staff member's socket on B at once", async () => {
  const auditor = await createUser(a.db, ['audit.read']);
  const owner = await createUser(a.db, ['*']);
  const onB = await connected(a, auditor, socketUrl(b));
  clients.push(onB);
  const revoked = await a.request({
    method: 'POST',
    url: '/v1/admin/users/bulk/roles',
    token: owner.token,
    payload: { user_ids: [auditor.id], role_key: `test-${auditor.id.slice(0, 8)}`, action: 'revoke' },
  });
  expect(revoked.statusCode, revoked.body).toBe(200);
  // Well before B's next heartbeat (25 s): B heard the change notice.
  expect(await onB.waitFor((frame) => frame.type === 'error', 2_000)).toEqual({
    type: 'error',
    error: 'channel_not_allowed',
    channels: ['dashboard'],
  });
  expect(onB.frames.at(-1)).toEqual({ type: 'subscribed', channels: [`user:${auditor.id}`] });
});

it('closing an instance closes its sockets with 1001 (going away)', async () => {
  const closing = b.close();
  bClosed = true;
  expect((await closedWithin(playerOnB)).code).toBe(1001);
  await closing;
});
