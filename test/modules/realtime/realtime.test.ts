import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTicket, ticketKey } from '../../../src/modules/realtime/tickets.js';
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
 * GET /v1/me/realtime and the socket at /v1/realtime on one listening instance, with real
 * WebSocket clients. Cross-instance delivery is in instances.test.ts.
 */

let t: TestApp;
let url: string;
const clients: RealtimeClient[] = [];
const track = (client: RealtimeClient) => {
  clients.push(client);
  return client;
};

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = socketUrl(t);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';
/** The role createUser made for the user's permissions. */
const roleOf = (user: TestUser) =>
  t.db
    .selectFrom('user_roles as ur')
    .innerJoin('roles as r', 'r.id', 'ur.role_id')
    .select(['r.id', 'r.key'])
    .where('ur.user_id', '=', user.id)
    .where('r.id', '!=', OWNER_ROLE_ID)
    .executeTakeFirstOrThrow();
/** Subscribes a role through the staff route, as an owner would (holding every key the role holds). */
async function subscribe(roleId: string, alerts: string[]) {
  const admin = await createUser(t.db, ['*']);
  const response = await t.request({
    method: 'PUT',
    url: `/v1/admin/roles/${roleId}/alerts`,
    token: admin.token,
    payload: { alerts },
  });
  expect(response.statusCode, response.body).toBe(200);
}

const publishDashboard = (name: string) =>
  t.db
    .transaction()
    .execute((trx) => t.kernel.events.publish(trx, { kind: 'dashboard', name, payload: { probe: name } }));

describe('GET /v1/me/realtime', () => {
  it('401 without a token', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/me/realtime' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'missing_token' });
  });

  it("answers a 60 s ticket, the socket URL on the public base, and the caller's channels; no secret", async () => {
    const player = await createUser(t.db);
    const before = Date.now();
    const body = await credentials(t, player);
    expect(Object.keys(body).sort()).toEqual(['channels', 'expires_at', 'ticket', 'url']);
    expect(body.url).toBe('ws://platform.test/v1/realtime');
    expect(body.channels).toEqual([`user:${player.id}`]);
    const ttl = new Date(body.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
    // The ticket's readable half says who, which channels and until when: nothing else.
    const claims = JSON.parse(Buffer.from(body.ticket.split('.')[0]!, 'base64url').toString());
    expect(Object.keys(claims).sort()).toEqual(['ch', 'exp', 'sub']);
    const text = JSON.stringify(body);
    for (const secret of [t.kernel.config.jwtSecret!, t.kernel.signingKey, player.token])
      expect(text).not.toContain(secret);
  });

  it.each([
    { who: 'a player', perms: [], extra: [] },
    { who: 'an auditor', perms: ['audit.read'], extra: ['dashboard'] },
    { who: 'an ops reader whose role hears no alert', perms: ['ops.read'], extra: [] },
    { who: 'staff of another area', perms: ['billing.read', 'content.write'], extra: [] },
    { who: 'a support agent', perms: ['support.read', 'users.read'], extra: ['area:support'] },
    { who: 'marketing', perms: ['email.read', 'email.send'], extra: ['area:email'] },
    { who: 'a holder of every permission (*)', perms: ['*'], extra: ['dashboard', 'area:support', 'area:email'] },
  ])('$who gets their own channel and $extra', async ({ perms, extra }) => {
    const user = await createUser(t.db, perms);
    expect((await credentials(t, user)).channels).toEqual([`user:${user.id}`, ...extra]);
  });

  it("a holder of roles subscribed to alerts gets each role's alert channel (the built-in owner hears panic changes)", async () => {
    const user = await createUser(t.db, ['ops.read']);
    const ownRole = await roleOf(user);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: user.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: 'test', expires_at: null })
      .execute();
    // The owner holds every key: the dashboard and each area channel, then the alert channels.
    const OWNER_CHANNELS = ['dashboard', 'area:support', 'area:email', 'alerts:owner'];
    expect((await credentials(t, user)).channels).toEqual([`user:${user.id}`, ...OWNER_CHANNELS]);
    await subscribe(ownRole.id, ['panic_mode_changed']);
    expect((await credentials(t, user)).channels).toEqual([
      `user:${user.id}`,
      ...OWNER_CHANNELS,
      `alerts:${ownRole.key}`,
    ]);
    // An expired grant no longer lets its holder in.
    await t.db
      .updateTable('user_roles')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('user_id', '=', user.id)
      .where('role_id', '=', ownRole.id)
      .execute();
    expect((await credentials(t, user)).channels).toEqual([`user:${user.id}`, ...OWNER_CHANNELS]);
  });
});

describe('GET /v1/realtime: admission', () => {
  it('a good ticket joins every channel it names', async () => {
    const owner = await createUser(t.db, ['*']);
    const client = track(openSocket(url, (await credentials(t, owner)).ticket));
    expect(await client.waitFor((frame) => frame.type === 'subscribed')).toEqual({
      type: 'subscribed',
      channels: [`user:${owner.id}`, 'dashboard', 'area:support', 'area:email'],
    });
  });

  it('a ticket may open a second socket during its life', async () => {
    const player = await createUser(t.db);
    const { ticket } = await credentials(t, player);
    for (const client of [track(openSocket(url, ticket)), track(openSocket(url, ticket))]) {
      await client.waitFor((frame) => frame.type === 'subscribed');
    }
  });

  it('a plain HTTP request is told to upgrade (426)', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/realtime' });
    expect(response.statusCode).toBe(426);
    expect(response.json()).toEqual({ error: 'upgrade_required' });
  });

  const refusedTickets: Array<{ name: string; ticket: () => Promise<string | undefined> }> = [
    { name: 'missing', ticket: async () => undefined },
    { name: 'garbage', ticket: async () => 'not-a-ticket' },
    {
      name: 'repeated',
      ticket: async () => {
        const { ticket } = await credentials(t, await createUser(t.db));
        return `${ticket}&ticket=${ticket}`;
      },
    },
    {
      name: 'forged: channels widened, signature kept',
      ticket: async () => {
        const player = await createUser(t.db);
        const [body, signature] = (await credentials(t, player)).ticket.split('.');
        const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
        const widened = Buffer.from(
          JSON.stringify({ ...claims, ch: [...claims.ch, 'dashboard', 'alerts:owner'] }),
        ).toString('base64url');
        return `${widened}.${signature}`;
      },
    },
    {
      name: 'signed with another key',
      ticket: async () =>
        signTicket(ticketKey('not the service key'), {
          userId: (await createUser(t.db)).id,
          channels: ['dashboard'],
          expiresAt: Math.floor(Date.now() / 1000) + 60,
        }),
    },
    {
      name: 'expired',
      ticket: async () => {
        const player = await createUser(t.db);
        return signTicket(ticketKey(t.kernel.signingKey), {
          userId: player.id,
          channels: [`user:${player.id}`],
          expiresAt: Math.floor(Date.now() / 1000) - 1,
        });
      },
    },
    {
      name: 'of a user banned since it was issued',
      ticket: async () => {
        const player = await createUser(t.db);
        const { ticket } = await credentials(t, player);
        await t.db.updateTable('users').set({ status: 'banned' }).where('id', '=', player.id).execute();
        return ticket;
      },
    },
    {
      name: 'of a user deleted since it was issued',
      ticket: async () => {
        const player = await createUser(t.db);
        const { ticket } = await credentials(t, player);
        await t.db.updateTable('users').set({ status: 'deleted' }).where('id', '=', player.id).execute();
        return ticket;
      },
    },
    {
      name: 'of a user signed out everywhere since it was issued',
      ticket: async () => {
        const player = await createUser(t.db);
        const { ticket } = await credentials(t, player);
        await t.db
          .updateTable('users')
          .set({ tokens_valid_after: new Date(Date.now() + 1_000) })
          .where('id', '=', player.id)
          .execute();
        return ticket;
      },
    },
  ];

  it.each(refusedTickets)('a $name ticket is closed with 1008 and no frame', async ({ ticket }) => {
    const client = track(openSocket(url, await ticket()));
    expect((await closedWithin(client)).code).toBe(1008);
    expect(client.frames).toEqual([]);
  });

  it('a banned user gets no ticket at all', async () => {
    const banned = await createUser(t.db, [], { status: 'banned' });
    const response = await t.request({ method: 'GET', url: '/v1/me/realtime', token: banned.token });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'forbidden', details: { reason: 'account_banned' } });
  });
});

describe('GET /v1/realtime: channels and delivery', () => {
  let auditor: RealtimeClient;
  let auditorUser: TestUser;

  beforeAll(async () => {
    auditorUser = await createUser(t.db, ['audit.read']);
    auditor = track(await connected(t, auditorUser));
  });

  it('a channel the ticket does not allow is refused with an error frame and its events never arrive', async () => {
    const playerUser = await createUser(t.db);
    const other = await createUser(t.db);
    const player = track(await connected(t, playerUser));
    player.send({ type: 'subscribe', channels: [`user:${playerUser.id}`, 'dashboard', `user:${other.id}`] });
    expect(await player.waitFor((frame) => frame.type === 'error')).toEqual({
      type: 'error',
      error: 'channel_not_allowed',
      channels: ['dashboard', `user:${other.id}`],
    });
    expect(await player.waitFor((frame) => frame.type === 'subscribed' && player.frames.indexOf(frame) > 0)).toEqual({
      type: 'subscribed',
      channels: [`user:${playerUser.id}`],
    });

    await publishDashboard('test.refused_probe');
    // The auditor hearing it proves it was delivered on this instance; the player never does.
    expect(await auditor.waitFor((frame) => frame.name === 'test.refused_probe')).toMatchObject({
      type: 'event',
      channel: 'dashboard',
      payload: { probe: 'test.refused_probe' },
      at: expect.any(String),
      id: expect.any(Number),
    });
    await caughtUp(player);
    expect(player.frames.filter((frame) => frame.type === 'event')).toEqual([]);
  });

  it("an area's staff hear that area's events on its own channel, without the dashboard or another area's", async () => {
    const agentUser = await createUser(t.db, ['support.read']);
    const marketerUser = await createUser(t.db, ['email.read']);
    const issued = await credentials(t, agentUser);
    expect(issued.channels).toEqual([`user:${agentUser.id}`, 'area:support']);
    const agent = track(await connected(t, agentUser));
    const marketer = track(await connected(t, marketerUser));
    agent.send({ type: 'subscribe', channels: ['area:support', 'area:email', 'dashboard'] });
    expect(await agent.waitFor((frame) => frame.type === 'error')).toEqual({
      type: 'error',
      error: 'channel_not_allowed',
      channels: ['area:email', 'dashboard'],
    });
    await agent.waitFor((frame) => frame.type === 'subscribed' && frame.channels.length === 1);

    await publishDashboard('support.ticket_opened');
    await publishDashboard('email.campaign_paused');
    expect(await agent.waitFor((frame) => frame.name === 'support.ticket_opened')).toMatchObject({
      type: 'event',
      channel: 'area:support',
      payload: { probe: 'support.ticket_opened' },
    });
    expect(await marketer.waitFor((frame) => frame.name === 'email.campaign_paused')).toMatchObject({
      type: 'event',
      channel: 'area:email',
    });
    // The auditor hears both on the dashboard, once each.
    await auditor.waitFor((frame) => frame.name === 'email.campaign_paused');
    await caughtUp(agent);
    await caughtUp(marketer);
    const names = (client: RealtimeClient) =>
      client.frames.filter((frame) => frame.type === 'event').map((frame) => `${frame.channel} ${frame.name}`);
    expect(names(agent)).toEqual(['area:support support.ticket_opened']);
    expect(names(marketer)).toEqual(['area:email email.campaign_paused']);
    expect(auditor.frames.filter((frame) => frame.name === 'support.ticket_opened').map((f) => f.channel)).toEqual([
      'dashboard',
    ]);
  });

  it('subscribing to a subset leaves the other channels', async () => {
    const narrowed = track(await connected(t, auditorUser));
    narrowed.send({ type: 'subscribe', channels: [`user:${auditorUser.id}`] });
    await narrowed.waitFor((frame) => frame.type === 'subscribed' && frame.channels.length === 1);
    await publishDashboard('test.narrowed_probe');
    await auditor.waitFor((frame) => frame.name === 'test.narrowed_probe');
    await caughtUp(narrowed);
    expect(narrowed.frames.filter((frame) => frame.type === 'event')).toEqual([]);
  });

  it('an unreadable frame gets invalid_message and the socket stays open', async () => {
    const client = track(await connected(t, await createUser(t.db)));
    client.send({ type: 'shout', channels: 'all' });
    expect(await client.waitFor((frame) => frame.type === 'error')).toEqual({
      type: 'error',
      error: 'invalid_message',
    });
    client.send({ type: 'subscribe', channels: [] });
    expect(await client.waitFor((frame) => frame.type === 'subscribed' && frame.channels.length === 0)).toBeDefined();
  });

  it('a panic mode change alerts subscribed roles once each; other staff and players get the level alone', async () => {
    const operator = await createUser(t.db, ['ops.panic']);
    const operatorRole = await roleOf(operator);
    await subscribe(operatorRole.id, ['panic_mode_changed']);
    // Also an owner: two subscribed roles, still one frame.
    await t.db
      .insertInto('user_roles')
      .values({ user_id: operator.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: 'test', expires_at: null })
      .execute();
    const alerts = track(await connected(t, operator));
    const unsubscribedOperator = track(await connected(t, await createUser(t.db, ['ops.panic'])));
    const player = track(await connected(t, await createUser(t.db)));
    try {
      const set = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level: 'degraded', reason: 'realtime test' },
      });
      expect(set.statusCode, set.body).toBe(200);
      expect(await alerts.waitFor((frame) => frame.name === 'panic_mode_changed')).toMatchObject({
        type: 'event',
        channel: 'alerts:owner',
        payload: { level: 'degraded', previous_level: 'off', reason: 'realtime test' },
      });
      // Staff whose roles hear no alert get it only as the dashboard's own event.
      // The dashboard's event names who changed the level, for the console's live feed.
      expect(await auditor.waitFor((frame) => frame.name === 'ops.panic_changed')).toMatchObject({
        actor_id: operator.id,
      });
      for (const client of [alerts, auditor, unsubscribedOperator, player]) await caughtUp(client);
      expect(alerts.frames.filter((frame) => frame.name === 'panic_mode_changed')).toHaveLength(1);
      expect(auditor.frames.some((frame) => frame.name === 'panic_mode_changed')).toBe(false);
      // Everyone else gets the level alone on their own channel (every console's banner; players see it in
      // any 503 `panic_mode` anyway): never the reason, who set it, or the alert.
      for (const client of [unsubscribedOperator, player])
        expect(client.frames.filter((frame) => frame.type === 'event')).toEqual([
          expect.objectContaining({
            channel: expect.stringMatching(/^user:/),
            name: 'ops.panic_changed',
            payload: { level: 'degraded' },
          }),
        ]);
    } finally {
      await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level: 'off', reason: 'realtime test done' },
      });
    }
  });

  it("a broadcast reaches the socket of the user it targets, not another user's", async () => {
    const staff = await createUser(t.db, ['announcements.write']);
    const targetUser = await createUser(t.db);
    const target = track(await connected(t, targetUser));
    const bystander = track(await connected(t, await createUser(t.db)));
    const sent = await t.request({
      method: 'POST',
      url: '/v1/admin/notifications/broadcast',
      token: staff.token,
      payload: {
        segment: { q: targetUser.id },
        notification: { kind: 'success', title: 'Just for you', body: 'Hello', action_url: '/rewards' },
      },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().recipients).toBe(1);
    const frame = await target.waitFor((f) => f.type === 'notification');
    expect(frame).toEqual({
      type: 'notification',
      channel: `user:${targetUser.id}`,
      at: expect.any(String),
      notification: {
        id: expect.any(String),
        kind: 'success',
        title: 'Just for you',
        body: 'Hello',
        action_url: '/rewards',
        starts_at: null,
        ends_at: null,
        created_at: expect.any(String),
        read: false,
        read_at: null,
      },
    });
    // The same notification the player's list shows.
    const listed = await t.request({ method: 'GET', url: '/v1/me/notifications', token: targetUser.token });
    expect(listed.json().data[0].id).toBe(frame.notification.id);
    await auditor.waitFor((f) => f.name === 'notifications.broadcast_sent');
    await caughtUp(bystander);
    expect(bystander.frames.filter((f) => f.type === 'notification')).toEqual([]);
  });

  it('a broadcast to everyone reaches every listening user', async () => {
    const staff = await createUser(t.db, ['announcements.write']);
    const sockets = [
      track(await connected(t, await createUser(t.db))),
      track(await connected(t, await createUser(t.db))),
    ];
    const sent = await t.request({
      method: 'POST',
      url: '/v1/admin/notifications/broadcast',
      token: staff.token,
      payload: { notification: { title: 'Everyone' } },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    for (const socket of sockets)
      expect(
        await socket.waitFor((f) => f.type === 'notification' && f.notification.title === 'Everyone'),
      ).toBeDefined();
  });
});
