import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import {
  caughtUp,
  closedWithin,
  connected,
  credentials,
  openSocket,
  socketUrl,
  type RealtimeClient,
} from './fixtures.js';

/**
 * A change to what a staff member may do reaches their open sockets at once (not at the next
 * heartbeat, 25 s later): a revoked or expired grant, or a role's permissions or alerts edited,
 * takes its channels with it, and a ticket issued before the change joins only what the user may
 * join now. (A role is deleted only once no unexpired grant of it is held: its holders have
 * already lost its channels by then.)
 */

let t: TestApp;
let owner: TestUser;
const clients: RealtimeClient[] = [];
const track = (client: RealtimeClient) => {
  clients.push(client);
  return client;
};
/** Well under the heartbeat: the change must not wait for it. */
const PROMPTLY_MS = 2_000;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createUser(t.db, ['*']);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

/** A staff member holding `audit.read` through a role of their own, and that role's id and key. */
async function auditor(): Promise<{ user: TestUser; roleId: string; roleKey: string }> {
  const user = await createUser(t.db, ['audit.read']);
  const role = await t.db
    .selectFrom('user_roles as ur')
    .innerJoin('roles as r', 'r.id', 'ur.role_id')
    .select(['r.id', 'r.key'])
    .where('ur.user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  return { user, roleId: role.id, roleKey: role.key };
}

async function asOwner(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  const response = await t.request({ method, url, token: owner.token, ...(payload === undefined ? {} : { payload }) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response;
}

const revoke = (user: TestUser, roleKey: string) =>
  asOwner('POST', '/v1/admin/users/bulk/roles', {
    user_ids: [user.id],
    role_key: roleKey,
    action: 'revoke',
    reason: 'left the team',
  });

const publishDashboard = (name: string) =>
  t.db
    .transaction()
    .execute((trx) => t.kernel.events.publish(trx, { kind: 'dashboard', name, payload: { probe: name } }));

/** The socket was told it left the dashboard, and hears no dashboard event after. */
async function leftTheDashboard(client: RealtimeClient, userId: string): Promise<void> {
  expect(
    await client.waitFor((frame) => frame.type === 'error' && frame.error === 'channel_not_allowed', PROMPTLY_MS),
  ).toEqual({ type: 'error', error: 'channel_not_allowed', channels: ['dashboard'] });
  expect(client.frames.at(-1)).toEqual({ type: 'subscribed', channels: [`user:${userId}`] });
  const before = client.frames.length;
  await publishDashboard('test.after_revocation');
  await caughtUp(client);
  expect(client.frames.slice(before).filter((frame) => frame.type === 'event')).toEqual([]);
}

describe('open sockets follow role changes', () => {
  it('a revoked role leaves the dashboard at once; the socket stays open on its own channel', async () => {
    const { user, roleKey } = await auditor();
    const client = track(await connected(t, user));
    await publishDashboard('test.before_revocation');
    await client.waitFor((frame) => frame.name === 'test.before_revocation');

    await revoke(user, roleKey);
    await leftTheDashboard(client, user.id);
    // Asking for it again is refused: the ticket's channel is no longer the user's.
    const sent = client.frames.length;
    client.send({ type: 'subscribe', channels: ['dashboard', `user:${user.id}`] });
    expect(await client.waitFor((frame) => frame.type === 'error' && client.frames.indexOf(frame) >= sent)).toEqual({
      type: 'error',
      error: 'channel_not_allowed',
      channels: ['dashboard'],
    });
  });

  it('a grant that expires leaves the dashboard when it expires', async () => {
    const user = await createUser(t.db);
    const { roleKey } = await auditor();
    await asOwner('POST', '/v1/admin/users/bulk/roles', {
      user_ids: [user.id],
      role_key: roleKey,
      action: 'grant',
      expires_at: new Date(Date.now() + 1_500).toISOString(),
      reason: 'an hour of cover',
    });
    const client = track(await connected(t, user));
    expect(client.frames[0]).toEqual({ type: 'subscribed', channels: [`user:${user.id}`, 'dashboard'] });
    await leftTheDashboard(client, user.id);
  });

  it("a role's permissions edited leave the dashboard of every holder", async () => {
    const { user, roleId } = await auditor();
    const client = track(await connected(t, user));
    await asOwner('PUT', `/v1/admin/roles/${roleId}/permissions`, { keys: ['users.read'] });
    await leftTheDashboard(client, user.id);
  });

  it('a grant ended by any write, hand-run SQL included, leaves the dashboard', async () => {
    const { user, roleId } = await auditor();
    const client = track(await connected(t, user));
    await t.db.deleteFrom('user_roles').where('role_id', '=', roleId).execute();
    await leftTheDashboard(client, user.id);
  });

  it("a role's alert subscriptions removed leave its alert channel", async () => {
    const { user, roleId, roleKey } = await auditor();
    await asOwner('PUT', `/v1/admin/roles/${roleId}/alerts`, { alerts: ['panic_mode_changed'] });
    const client = track(await connected(t, user));
    expect(client.frames[0]?.channels).toContain(`alerts:${roleKey}`);
    await asOwner('PUT', `/v1/admin/roles/${roleId}/alerts`, { alerts: [] });
    expect(
      await client.waitFor((frame) => frame.type === 'error' && frame.error === 'channel_not_allowed', PROMPTLY_MS),
    ).toEqual({ type: 'error', error: 'channel_not_allowed', channels: [`alerts:${roleKey}`] });
    expect(client.frames.at(-1)).toEqual({ type: 'subscribed', channels: [`user:${user.id}`, 'dashboard'] });
  });

  it('a ban closes the socket at once (1008), not at the next heartbeat', async () => {
    const { user } = await auditor();
    const client = track(await connected(t, user));
    await asOwner('POST', `/v1/admin/users/${user.id}/ban`, { reason: 'abuse' });
    expect(await closedWithin(client, PROMPTLY_MS)).toEqual({ code: 1008, reason: 'account refused' });
  });
});

describe('a ticket issued before a change', () => {
  it('joins only what the user may join now', async () => {
    const { user, roleKey } = await auditor();
    const { ticket, channels } = await credentials(t, user);
    expect(channels).toEqual([`user:${user.id}`, 'dashboard']);
    await revoke(user, roleKey);

    const client = track(openSocket(socketUrl(t), ticket));
    expect(await client.waitFor((frame) => frame.type === 'subscribed')).toEqual({
      type: 'subscribed',
      channels: [`user:${user.id}`],
    });
    client.send({ type: 'subscribe', channels: ['dashboard'] });
    expect(await client.waitFor((frame) => frame.type === 'error')).toEqual({
      type: 'error',
      error: 'channel_not_allowed',
      channels: ['dashboard'],
    });
  });

  it('gets back what was granted again, up to its own channels', async () => {
    const { user, roleKey } = await auditor();
    const client = track(await connected(t, user));
    await revoke(user, roleKey);
    await leftTheDashboard(client, user.id);
    await asOwner('POST', '/v1/admin/users/bulk/roles', { user_ids: [user.id], role_key: roleKey, action: 'grant' });
    // Not joined by itself: the client asks, and is let in once the grant has reached the socket.
    await expect
      .poll(
        async () => {
          const sent = client.frames.length;
          client.send({ type: 'subscribe', channels: ['dashboard'] });
          const answer = await client.waitFor(
            (frame) => frame.type === 'subscribed' && client.frames.indexOf(frame) >= sent,
          );
          return answer.channels;
        },
        { timeout: PROMPTLY_MS, interval: 200 },
      )
      .toEqual(['dashboard']);
  });
});
