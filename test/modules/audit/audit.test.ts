import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf } from '../../helpers/expectations.js';
import { clockPast } from '../../helpers/waiting.js';

interface Write {
  /** Index in write order (0 = oldest). */
  n: number;
  actor: TestUser;
  action: string;
  target_type: string;
  target_id: string;
  reason: string | null;
  ip: string;
  user_agent: string;
  summary: Record<string, unknown>;
  request_id: string;
}

describe('audit log', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let reader: TestUser;
  const writes: Write[] = [];
  let alphaId = '';
  let betaId = '';

  /** One staff write through the real routes; remembers what its audit row must say. */
  async function write(
    actor: TestUser,
    request: { method: 'POST' | 'PUT' | 'DELETE'; url: string; payload?: unknown },
    expected: Omit<Write, 'n' | 'actor' | 'ip' | 'user_agent' | 'request_id'>,
    ok: number,
  ): Promise<LightMyRequestResponse> {
    const ip = actor === alice ? '203.0.113.10' : '203.0.113.20';
    const userAgent = `${actor === alice ? 'alice' : 'bob'}-console/1.0`;
    const headers: Record<string, string> = { 'user-agent': userAgent };
    const response = await t.request({
      method: request.method,
      url: request.url,
      payload: request.payload as never,
      token: actor.token,
      headers,
      remoteAddress: ip,
    });
    expect(response.statusCode, response.body).toBe(ok);
    const requestId = response.headers['x-request-id'] as string;
    writes.push({ n: writes.length, actor, ip, user_agent: userAgent, request_id: requestId, ...expected });
    // Rows in distinct milliseconds: from/to bounds taken from created_at split them cleanly.
    for (const row of await auditOf(t.db, requestId)) await clockPast(row.created_at);
    return response;
  }

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUser(t.db, ['roles.write', 'roles.read', 'ops.panic'], { email: 'alice@staff.test' });
    bob = await createUser(t.db, ['roles.write', 'ops.panic'], { email: 'bob@staff.test' });
    reader = await createUser(t.db, ['audit.read']);

    const alpha = await write(
      alice,
      { method: 'POST', url: '/v1/admin/roles', payload: { key: 'aud-alpha', name: 'Alpha' } },
      {
        action: 'roles.create',
        target_type: 'role',
        target_id: '',
        reason: null,
        summary: { after: { key: 'aud-alpha', name: 'Alpha', permissions: [] } },
      },
      201,
    );
    alphaId = alpha.json().id;
    writes[0]!.target_id = alphaId;

    const beta = await write(
      bob,
      { method: 'POST', url: '/v1/admin/roles', payload: { key: 'aud-beta', name: 'Beta' } },
      {
        action: 'roles.create',
        target_type: 'role',
        target_id: '',
        reason: null,
        summary: { after: { key: 'aud-beta', name: 'Beta', permissions: [] } },
      },
      201,
    );
    betaId = beta.json().id;
    writes[1]!.target_id = betaId;

    await write(
      alice,
      { method: 'PUT', url: `/v1/admin/roles/${alphaId}/permissions`, payload: { keys: ['roles.read'] } },
      {
        action: 'roles.permissions_update',
        target_type: 'role',
        target_id: alphaId,
        reason: null,
        summary: { before: { permissions: [] }, after: { permissions: ['roles.read'] } },
      },
      204,
    );

    await write(
      bob,
      {
        method: 'POST',
        url: '/v1/admin/ops/panic',
        payload: { level: 'degraded', reason: 'bob degrades 100% of checkouts' },
      },
      {
        action: 'ops.panic.set',
        target_type: 'panic',
        target_id: 'global',
        reason: 'bob degrades 100% of checkouts',
        summary: {
          before: { level: 'off', reason: null },
          after: { level: 'degraded', reason: 'bob degrades 100% of checkouts' },
        },
      },
      200,
    );

    await write(
      alice,
      {
        method: 'POST',
        url: '/v1/admin/ops/panic',
        payload: { level: 'off', reason: 'alice restores service' },
      },
      {
        action: 'ops.panic.set',
        target_type: 'panic',
        target_id: 'global',
        reason: 'alice restores service',
        summary: {
          before: { level: 'degraded', reason: 'bob degrades 100% of checkouts' },
          after: { level: 'off', reason: 'alice restores service' },
        },
      },
      200,
    );

    await write(
      bob,
      { method: 'DELETE', url: `/v1/admin/roles/${betaId}?reason=obsolete%20beta` },
      {
        action: 'roles.delete',
        target_type: 'role',
        target_id: betaId,
        reason: 'obsolete beta',
        summary: { before: { key: 'aud-beta', name: 'Beta', permissions: [] } },
      },
      204,
    );

    // A refused write leaves no trace in the log.
    const refused = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      token: bob.token,
      payload: { key: 'aud-escalate', name: 'Escalate', permissions: ['*'] },
    });
    expect(refused.statusCode).toBe(403);
  });
  afterAll(async () => {
    await t.close();
  });

  function expectedRow(w: Write) {
    return {
      id: expect.any(String),
      created_at: expect.any(String),
      actor_id: w.actor.id,
      actor_email: w.actor.email,
      actor_name: null,
      action: w.action,
      target_type: w.target_type,
      target_id: w.target_id,
      // Role Beta is deleted by the last write: only Alpha still has a name to show.
      target_label: w.target_id === alphaId ? 'Alpha' : null,
      request_id: w.request_id,
      ip: w.ip,
      user_agent: w.user_agent,
      reason: w.reason,
      summary: w.summary,
    };
  }

  const list = (query = '', token = reader.token) =>
    t.request({ method: 'GET', url: `/v1/admin/audit${query}`, token });
  const newestFirst = (ns: number[]) => [...ns].sort((a, b) => b - a).map((n) => writes[n]!.request_id);

  it('lists every staff write, newest first, with who, what, where and why', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25, total: 6 });
    expect(body.data).toEqual([...writes].reverse().map(expectedRow));
    // The stored rows say the same (the list is not decorating anything).
    const stored = await t.db
      .selectFrom('audit_log')
      .select(['actor_id', 'action', 'request_id', 'ip', 'user_agent'])
      .orderBy('created_at')
      .execute();
    expect(stored).toEqual(
      writes.map((w) => ({
        actor_id: w.actor.id,
        action: w.action,
        request_id: w.request_id,
        ip: w.ip,
        user_agent: w.user_agent,
      })),
    );
    const times = body.data.map((row: { created_at: string }) => Date.parse(row.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('pages with meta and total, and sorts oldest first on request', async () => {
    const page1 = (await list('?per_page=4')).json();
    const page2 = (await list('?per_page=4&page=2')).json();
    const page3 = (await list('?per_page=4&page=3')).json();
    expect(page1.meta).toEqual({ page: 1, per_page: 4, total: 6 });
    expect(page2.meta).toEqual({ page: 2, per_page: 4, total: 6 });
    expect(page3).toEqual({ data: [], meta: { page: 3, per_page: 4, total: 6 } });
    expect([...page1.data, ...page2.data].map((r: { request_id: string }) => r.request_id)).toEqual(
      newestFirst([0, 1, 2, 3, 4, 5]),
    );
    const oldest = (await list('?sort=created_at:asc&per_page=2')).json();
    expect(oldest.data.map((r: { request_id: string }) => r.request_id)).toEqual([
      writes[0]!.request_id,
      writes[1]!.request_id,
    ]);
    // A group prefix pages in the same order both ways (it reads another index: migration 0037).
    const groupAsc = (await list('?action=roles.*&sort=created_at:asc&per_page=3&page=2')).json();
    expect(groupAsc.meta).toEqual({ page: 2, per_page: 3, total: 4 });
    expect(groupAsc.data.map((r: { request_id: string }) => r.request_id)).toEqual([writes[5]!.request_id]);
    const groupDesc = (await list('?action=roles.*&per_page=3')).json();
    expect(groupDesc.data.map((r: { request_id: string }) => r.request_id)).toEqual(
      newestFirst([0, 1, 2, 5]).slice(0, 3),
    );
  });

  describe('filters', () => {
    // Filters name writes by their index (0 = oldest). Built lazily: ids exist only after beforeAll.
    const cases: Array<{ name: string; query: () => Record<string, string>; expected: number[] }> = [
      { name: 'actor_id alice', query: () => ({ actor_id: alice.id }), expected: [0, 2, 4] },
      { name: 'actor_id bob', query: () => ({ actor_id: bob.id }), expected: [1, 3, 5] },
      { name: 'actor_id of nobody', query: () => ({ actor_id: reader.id }), expected: [] },
      { name: 'action exact', query: () => ({ action: 'roles.create' }), expected: [0, 1] },
      { name: 'action exact is not a prefix', query: () => ({ action: 'roles' }), expected: [] },
      { name: 'action prefix roles.*', query: () => ({ action: 'roles.*' }), expected: [0, 1, 2, 5] },
      { name: 'action prefix ops.*', query: () => ({ action: 'ops.*' }), expected: [3, 4] },
      { name: 'action prefix that ends inside the group', query: () => ({ action: 'rol*' }), expected: [0, 1, 2, 5] },
      { name: "action prefix past the group's dot", query: () => ({ action: 'roles.perm*' }), expected: [2] },
      {
        name: "action prefix of a group that is only a longer group's start",
        query: () => ({ action: 'role.*' }),
        expected: [],
      },
      { name: 'action prefix * alone', query: () => ({ action: '*' }), expected: [0, 1, 2, 3, 4, 5] },
      { name: 'action prefix treats _ literally', query: () => ({ action: 'roles.permissions_*' }), expected: [2] },
      { name: 'target_type role', query: () => ({ target_type: 'role' }), expected: [0, 1, 2, 5] },
      { name: 'target_type + target_id', query: () => ({ target_type: 'role', target_id: alphaId }), expected: [0, 2] },
      {
        name: 'target of the panic state',
        query: () => ({ target_type: 'panic', target_id: 'global' }),
        expected: [3, 4],
      },
      {
        name: 'actor and action prefix together',
        query: () => ({ actor_id: bob.id, action: 'roles.*' }),
        expected: [1, 5],
      },
      { name: 'q over the reason', query: () => ({ q: 'obsolete' }), expected: [5] },
      { name: 'q is case-insensitive', query: () => ({ q: 'ALICE RESTORES' }), expected: [4] },
      { name: 'q over the request id', query: () => ({ q: writes[1]!.request_id }), expected: [1] },
      { name: 'q over the action', query: () => ({ q: 'permissions_update' }), expected: [2] },
      { name: 'q treats % literally', query: () => ({ q: '100%' }), expected: [3] },
      { name: 'q with % does not match everything', query: () => ({ q: '%s' }), expected: [] },
      { name: 'q with only a wildcard character matches only literal text', query: () => ({ q: '_' }), expected: [2] },
    ];

    it.each(cases)('$name', async ({ query, expected }) => {
      const response = await list(`?${new URLSearchParams(query())}`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.meta.total).toBe(expected.length);
      expect(body.data).toEqual(
        newestFirst(expected).map((id) => expectedRow(writes.find((w) => w.request_id === id)!)),
      );
    });

    it('from (inclusive) and to (exclusive) bound created_at', async () => {
      const all = (await list('?sort=created_at:asc')).json().data as Array<{ created_at: string; request_id: string }>;
      const at = (n: number) => all[n]!.created_at;
      const ids = async (query: Record<string, string>) => {
        const body = (await list(`?${new URLSearchParams(query)}`)).json();
        expect(body.meta.total).toBe(body.data.length);
        return body.data.map((r: { request_id: string }) => r.request_id);
      };
      expect(await ids({ from: at(2), to: at(4) })).toEqual(newestFirst([2, 3]));
      expect(await ids({ from: at(4) })).toEqual(newestFirst([4, 5]));
      expect(await ids({ to: at(1) })).toEqual(newestFirst([0]));
      // An offset form of the same instant means the same bound.
      const plusTwo = new Date(Date.parse(at(4)) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      expect(await ids({ from: plusTwo })).toEqual(newestFirst([4, 5]));
      expect(await ids({ from: at(5), to: at(5) })).toEqual([]);
      expect(await ids({ from: at(1), to: at(4), actor_id: alice.id })).toEqual(newestFirst([2]));
    });
  });

  describe('facets', () => {
    const facets = (query = '', token = reader.token) =>
      t.request({ method: 'GET', url: `/v1/admin/audit/facets${query}`, token });
    const actorsByCount = (entries: Array<[TestUser, number]>) =>
      entries
        .map(([user, count]) => ({ value: user.id, email: user.email, count }))
        .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));

    it('counts by action, actor and target type', async () => {
      const response = await facets();
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        total: 6,
        actions: [
          { value: 'ops.panic.set', count: 2 },
          { value: 'roles.create', count: 2 },
          { value: 'roles.delete', count: 1 },
          { value: 'roles.permissions_update', count: 1 },
        ],
        actors: actorsByCount([
          [alice, 3],
          [bob, 3],
        ]),
        target_types: [
          { value: 'role', count: 4 },
          { value: 'panic', count: 2 },
        ],
      });
    });

    it('counts over the same filters as the list', async () => {
      const byBob = await facets(`?actor_id=${bob.id}`);
      expect(byBob.json()).toEqual({
        total: 3,
        actions: [
          { value: 'ops.panic.set', count: 1 },
          { value: 'roles.create', count: 1 },
          { value: 'roles.delete', count: 1 },
        ],
        actors: actorsByCount([[bob, 3]]),
        target_types: [
          { value: 'role', count: 2 },
          { value: 'panic', count: 1 },
        ],
      });
      // q over action/target/reason/request id: only the first write's request id matches among role writes.
      const roleWrites = await facets(`?action=roles.*&q=${writes[0]!.request_id}`);
      expect(roleWrites.json()).toEqual({
        total: 1,
        actions: [{ value: 'roles.create', count: 1 }],
        actors: actorsByCount([[alice, 1]]),
        target_types: [{ value: 'role', count: 1 }],
      });
      const none = await facets(`?target_type=role&target_id=${reader.id}`);
      expect(none.json()).toEqual({ total: 0, actions: [], actors: [], target_types: [] });
    });

    it('agree with the list total for every list filter', async () => {
      for (const query of [`actor_id=${alice.id}`, 'action=roles.*', 'target_type=panic', 'q=obsolete']) {
        expect((await facets(`?${query}`)).json().total).toBe((await list(`?${query}`)).json().meta.total);
      }
    });
  });

  describe('refusals', () => {
    const routes = ['/v1/admin/audit', '/v1/admin/audit/facets'];

    it.each(routes)('%s needs audit.read (403 naming it)', async (url) => {
      const staff = await createUser(t.db, ['roles.read', 'roles.write', 'ops.read']);
      const response = await t.request({ method: 'GET', url, token: staff.token });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toStrictEqual({ error: 'forbidden', details: { perm: 'audit.read' } });
    });

    it.each(routes)('%s needs a token (401)', async (url) => {
      const response = await t.request({ method: 'GET', url });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toStrictEqual({ error: 'missing_token' });
    });

    it.each(routes)('%s is readable through a wildcard', async (url) => {
      const staff = await createUser(t.db, ['audit.*']);
      expect((await t.request({ method: 'GET', url, token: staff.token })).statusCode).toBe(200);
    });

    const badFilters: Array<{ name: string; query: string; issue: Record<string, unknown> }> = [
      {
        name: 'actor_id not a uuid',
        query: 'actor_id=alice',
        issue: {
          code: 'invalid_format',
          format: 'guid',
          origin: 'string',
          pattern: String(z.regexes.guid),
          path: ['actor_id'],
          message: 'Invalid GUID',
        },
      },
      {
        name: 'from not a date-time',
        query: 'from=yesterday',
        issue: { code: 'invalid_format', format: 'datetime', path: ['from'], message: 'Invalid ISO datetime' },
      },
      {
        name: 'to a date without time',
        query: 'to=2024-01-01',
        issue: { code: 'invalid_format', format: 'datetime', path: ['to'], message: 'Invalid ISO datetime' },
      },
      {
        name: 'empty action',
        query: 'action=',
        issue: {
          code: 'too_small',
          path: ['action'],
          message: 'Too small: expected string to have >=1 characters',
          minimum: 1,
          origin: 'string',
          inclusive: true,
        },
      },
    ];

    it.each(badFilters.flatMap((bad) => routes.map((url) => ({ ...bad, url }))))(
      '$url: $name → 400',
      async ({ url, query, issue }) => {
        const response = await t.request({ method: 'GET', url: `${url}?${query}`, token: reader.token });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toStrictEqual({ success: false, error: { name: 'SchemaError', issues: [issue] } });
      },
    );

    it('the list refuses an unknown sort and an oversized page', async () => {
      const sort = await list('?sort=action:asc');
      expect(sort.statusCode).toBe(400);
      expect(sort.json().error.issues.map((i: { path: unknown }) => i.path)).toEqual([['sort']]);
      const perPage = await list('?per_page=101');
      expect(perPage.statusCode).toBe(400);
      expect(perPage.json().error.issues.map((i: { path: unknown }) => i.path)).toEqual([['per_page']]);
    });

    it('reading the log writes nothing to it', async () => {
      const before = await t.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await list();
      await t.request({ method: 'GET', url: '/v1/admin/audit/facets', token: reader.token });
      const after = await t.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect(Number(after.n)).toBe(6);
    });
  });
});
