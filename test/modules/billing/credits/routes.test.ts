import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits, spendCredits } from '../../../../src/modules/billing/credits/ledger.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { expectConsistentCredits, expectNoCredits, ledgerOf, lotsOf } from './fixtures.js';

/**
 * The credit routes: the staff grant (with its idempotency key), the staff ledger and lot lists,
 * and the player's own ledger. Every answer is checked against the stored ledger, lots and audit
 * rows; every refusal is checked to have stored nothing.
 */

let t: TestApp;
let granter: TestUser;
let reader: TestUser;

const FUTURE = '2099-06-01T00:00:00.000Z';

const grant = (caller: TestUser | null, payload: unknown, idempotencyKey?: string) =>
  t.request({
    method: 'POST',
    url: '/v1/admin/billing/credits/grant',
    token: caller?.token,
    payload: payload as object,
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });

const get = (caller: TestUser | null, url: string) => t.request({ method: 'GET', url, token: caller?.token });

beforeAll(async () => {
  t = await startTestApp();
  granter = await createUser(t.db, ['billing.write']);
  reader = await createUser(t.db, ['billing.read']);
});
afterAll(async () => t.close());

describe('POST /v1/admin/billing/credits/grant', () => {
  it('adds a lot and a grant entry, audits it and emits a dashboard event', async () => {
    const player = await createUser(t.db);
    const response = await grant(granter, {
      user_id: player.id,
      amount: 250,
      reason: 'Sorry for the outage',
      expires_at: FUTURE,
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({ entry_id: expect.any(Number), balance: 250 });

    const [entry, ...more] = await ledgerOf(t.db, player.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      id: body.entry_id,
      user_id: player.id,
      amount: 250,
      kind: 'grant',
      balance_after: 250,
      actor_id: granter.id,
      reason: 'Sorry for the outage',
      reference_type: null,
      reference_id: null,
      idempotency_key: null,
    });
    const [lot] = await lotsOf(t.db, player.id);
    expect(lot).toMatchObject({ entry_id: body.entry_id, amount: 250, remaining: 250, expires_at: new Date(FUTURE) });

    const [audit, ...moreAudit] = await auditOf(t.db, requestIdOf(response));
    expect(moreAudit).toEqual([]);
    expect(audit).toMatchObject({
      action: 'billing.credits.grant',
      actor_id: granter.id,
      target_type: 'user',
      target_id: player.id,
      reason: 'Sorry for the outage',
      summary: { after: { amount: 250, expires_at: FUTURE, entry_id: body.entry_id, lot_id: lot!.id, balance: 250 } },
    });
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'billing.credits_granted',
          payload: { user_id: player.id, amount: 250, entry_id: body.entry_id },
          actorId: granter.id,
        }),
      ),
    );

    // A second grant without expiry adds to the balance and makes a never-lapsing lot.
    const second = await grant(granter, { user_id: player.id, amount: 50, reason: 'Loyalty' });
    expect(second.json()).toEqual({ entry_id: expect.any(Number), balance: 300 });
    expect((await lotsOf(t.db, player.id))[1]).toMatchObject({ amount: 50, remaining: 50, expires_at: null });
    expect(await expectConsistentCredits(t.db, player.id)).toBe(300);
  });

  it('with the same Idempotency-Key and body answers the first grant again and writes nothing more', async () => {
    const player = await createUser(t.db);
    const payload = { user_id: player.id, amount: 40, reason: 'Ticket 77', expires_at: FUTURE };
    const key = `ticket-77-${randomUUID()}`;
    const first = await grant(granter, payload, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Another grant in between: the replay still answers the balance the first grant left.
    await grant(granter, { user_id: player.id, amount: 5, reason: 'Other' });

    const again = await grant(granter, payload, key);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.json()).toEqual({ entry_id: expect.any(Number), balance: 40 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);

    const entries = await ledgerOf(t.db, player.id);
    expect(entries.map((entry) => [entry.amount, entry.idempotency_key])).toEqual([
      [40, `grant:${key}`],
      [5, null],
    ]);
    expect(await lotsOf(t.db, player.id)).toHaveLength(2);
    expect(await auditOf(t.db, requestIdOf(first))).toHaveLength(1);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(45);
  });

  it('refuses the same Idempotency-Key with a different body (409) and stores nothing', async () => {
    const player = await createUser(t.db);
    const other = await createUser(t.db);
    const key = randomUUID();
    const payload = { user_id: player.id, amount: 10, reason: 'First use' };
    expect((await grant(granter, payload, key)).statusCode).toBe(201);

    for (const changed of [
      { ...payload, amount: 11 },
      { ...payload, reason: 'Other reason' },
      { ...payload, expires_at: FUTURE },
      { ...payload, user_id: other.id },
    ]) {
      const response = await grant(granter, changed, key);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'conflict',
        details: { reason: 'this idempotency key was already used for a different request' },
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    expect((await ledgerOf(t.db, player.id)).map((entry) => entry.amount)).toEqual([10]);
    await expectNoCredits(t.db, other.id);
  });

  it('404s an unknown user and 422s a deleted one, storing nothing', async () => {
    const ghost = randomUUID();
    const unknown = await grant(granter, { user_id: ghost, amount: 10, reason: 'Nobody' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found' });
    expect(await auditOf(t.db, requestIdOf(unknown))).toEqual([]);
    await expectNoCredits(t.db, ghost);

    const gone = await createUser(t.db, [], { status: 'deleted' });
    const deleted = await grant(granter, { user_id: gone.id, amount: 10, reason: 'Too late' }, randomUUID());
    expect(deleted.statusCode).toBe(422);
    expect(deleted.json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'a deleted user cannot be granted credits', status: 'deleted' },
    });
    expect(await auditOf(t.db, requestIdOf(deleted))).toEqual([]);
    await expectNoCredits(t.db, gone.id);
  });

  it('422s an expiry that is not in the future, storing nothing', async () => {
    const player = await createUser(t.db);
    for (const expires_at of ['2020-01-01T00:00:00Z', new Date(Date.now() - 1_000).toISOString()]) {
      const response = await grant(granter, { user_id: player.id, amount: 10, reason: 'Already over', expires_at });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: 'invalid_request',
        details: { reason: 'expires_at must be in the future' },
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    await expectNoCredits(t.db, player.id);
  });

  it.each([
    ['amount 0', { amount: 0 }, ['amount']],
    ['amount over 1,000,000', { amount: 1_000_001 }, ['amount']],
    ['a fractional amount', { amount: 1.5 }, ['amount']],
    ['a short reason', { reason: 'no' }, ['reason']],
    ['a long reason', { reason: 'x'.repeat(501) }, ['reason']],
    ['a malformed user id', { user_id: 'someone' }, ['user_id']],
    ['a malformed expiry', { expires_at: 'tomorrow' }, ['expires_at']],
    ['an unknown field', { currency: 'eur' }, []],
  ])('400s %s and stores nothing', async (_name, change, path) => {
    const player = await createUser(t.db);
    const response = await grant(granter, { user_id: player.id, amount: 10, reason: 'Valid reason', ...change });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path }));
    await expectNoCredits(t.db, player.id);
  });

  it('400s an Idempotency-Key longer than 200 characters, or empty', async () => {
    const player = await createUser(t.db);
    for (const key of ['k'.repeat(201), '']) {
      const response = await grant(granter, { user_id: player.id, amount: 10, reason: 'Valid reason' }, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: ['idempotency-key'] }));
    }
    expect(
      (await grant(granter, { user_id: player.id, amount: 10, reason: 'Valid reason' }, 'k'.repeat(200))).statusCode,
    ).toBe(201);
    expect((await ledgerOf(t.db, player.id)).map((entry) => entry.idempotency_key)).toEqual([
      `grant:${'k'.repeat(200)}`,
    ]);
  });

  it('401s without a token and 403s without billing.write or billing.grant, storing nothing', async () => {
    const player = await createUser(t.db);
    const payload = { user_id: player.id, amount: 10, reason: 'Valid reason' };
    const anonymous = await grant(null, payload);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'missing_token' });
    const refused = await grant(reader, payload);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'billing.write | billing.grant' } });
    await expectNoCredits(t.db, player.id);
  });

  it('billing.grant alone grants (a support compensation) and reads nothing else of billing', async () => {
    const agent = await createUser(t.db, ['billing.grant']);
    const player = await createUser(t.db);
    const response = await grant(agent, { user_id: player.id, amount: 25, reason: 'Sorry for the outage' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ entry_id: expect.any(Number), balance: 25 });
    const [entry] = await ledgerOf(t.db, player.id);
    expect(entry).toMatchObject({ kind: 'grant', amount: 25, reason: 'Sorry for the outage' });
    const ledger = await get(agent, `/v1/admin/billing/ledger?user_id=${player.id}`);
    expect(ledger.statusCode).toBe(403);
    expect(ledger.json()).toEqual({ error: 'forbidden', details: { perm: 'billing.read' } });
  });
});

describe('GET /v1/admin/billing/ledger and /v1/admin/billing/lots', () => {
  let alice: TestUser;
  let bob: TestUser;
  let aliceGrant: number;
  let bobGrant: number;
  let aliceSpend: number;

  beforeAll(async () => {
    alice = await createUser(t.db);
    bob = await createUser(t.db);
    aliceGrant = (
      await grant(granter, { user_id: alice.id, amount: 100, reason: 'Welcome gift', expires_at: FUTURE })
    ).json().entry_id;
    bobGrant = (await grant(granter, { user_id: bob.id, amount: 30, reason: 'Bug bounty' })).json().entry_id;
    aliceSpend = await t.db.transaction().execute(
      async (trx) =>
        (
          await spendCredits(trx, {
            userId: alice.id,
            amount: 100,
            actorId: null,
            referenceType: 'game_session',
            referenceId: 'gs-1',
          })
        ).entryId,
    );
  });

  it("lists every user's entries, newest first, with a total, and filters them", async () => {
    const all = await get(reader, '/v1/admin/billing/ledger?per_page=100');
    expect(all.statusCode).toBe(200);
    const ids = all.json().data.map((entry: { id: number }) => entry.id);
    expect(ids.indexOf(aliceSpend)).toBeLessThan(ids.indexOf(bobGrant));
    expect(ids.indexOf(bobGrant)).toBeLessThan(ids.indexOf(aliceGrant));
    expect(all.json().meta).toEqual({ page: 1, per_page: 100, total: ids.length });

    const mine = await get(reader, `/v1/admin/billing/ledger?user_id=${alice.id}`);
    expect(mine.json()).toEqual({
      data: [
        {
          id: aliceSpend,
          user_id: alice.id,
          user_email: alice.email,
          amount: -100,
          kind: 'spend',
          balance_after: 0,
          reference_type: 'game_session',
          reference_id: 'gs-1',
          actor_id: null,
          reason: null,
          details: {},
          lot_id: null,
          expires_at: null,
          created_at: expect.any(String),
        },
        {
          id: aliceGrant,
          user_id: alice.id,
          user_email: alice.email,
          amount: 100,
          kind: 'grant',
          balance_after: 100,
          reference_type: null,
          reference_id: null,
          actor_id: granter.id,
          reason: 'Welcome gift',
          details: {},
          lot_id: expect.any(Number),
          expires_at: FUTURE,
          created_at: expect.any(String),
        },
      ],
      meta: { page: 1, per_page: 25, total: 2 },
    });

    const oldestFirst = await get(
      reader,
      `/v1/admin/billing/ledger?user_id=${alice.id}&sort=created_at:asc&per_page=1&page=2`,
    );
    expect(oldestFirst.json()).toMatchObject({ data: [{ id: aliceSpend }], meta: { page: 2, per_page: 1, total: 2 } });
    const spends = await get(reader, `/v1/admin/billing/ledger?kind=spend&user_id=${alice.id}`);
    expect(spends.json()).toMatchObject({ data: [{ id: aliceSpend, amount: -100 }], meta: { total: 1 } });
    const grants = await get(reader, `/v1/admin/billing/ledger?kind=grant&user_id=${alice.id}`);
    expect(grants.json()).toMatchObject({ data: [{ id: aliceGrant, amount: 100 }], meta: { total: 1 } });
    const byReference = await get(reader, '/v1/admin/billing/ledger?reference_type=game_session&reference_id=gs-1');
    expect(byReference.json()).toMatchObject({ data: [{ id: aliceSpend }], meta: { total: 1 } });
    const byText = await get(reader, '/v1/admin/billing/ledger?q=bug%20BOUNTY');
    expect(byText.json()).toMatchObject({ data: [{ id: bobGrant }], meta: { total: 1 } });
  });

  it('filters by creation time: created_from inclusive, created_to exclusive', async () => {
    const dave = await createUser(t.db);
    await grant(granter, { user_id: dave.id, amount: 9, reason: 'Dated' });
    await t.db.transaction().execute((trx) => spendCredits(trx, { userId: dave.id, amount: 4, actorId: null }));
    const [first, second] = await ledgerOf(t.db, dave.id);
    // Whole-second times, so the bounds can be named exactly.
    await t.db
      .updateTable('credit_ledger')
      .set({ created_at: '2020-01-01T00:00:00Z' })
      .where('id', '=', first!.id)
      .execute();
    await t.db
      .updateTable('credit_ledger')
      .set({ created_at: '2020-01-02T00:00:00Z' })
      .where('id', '=', second!.id)
      .execute();
    const ids = async (query: string) =>
      (await get(reader, `/v1/admin/billing/ledger?user_id=${dave.id}&${query}`))
        .json()
        .data.map((entry: { id: number }) => entry.id);
    expect(await ids('created_from=2020-01-02T00:00:00Z')).toEqual([second!.id]);
    expect(await ids('created_to=2020-01-02T00:00:00Z')).toEqual([first!.id]);
    expect(await ids('created_from=2020-01-01T00:00:00Z&created_to=2020-01-02T00:00:01Z')).toEqual([
      second!.id,
      first!.id,
    ]);
    expect(await ids('created_from=2020-01-01T00:00:01%2B00:00&created_to=2020-01-02T00:00:00Z')).toEqual([]);
  });

  it('lists lots with a total, filtered by user, activity and expiry', async () => {
    const carol = await createUser(t.db);
    const lots = await t.db.transaction().execute(async (trx) => {
      const soon = await addCredits(trx, {
        userId: carol.id,
        amount: 10,
        kind: 'gift',
        actorId: null,
        expiresAt: new Date('2098-01-01T00:00:00Z'),
      });
      const later = await addCredits(trx, {
        userId: carol.id,
        amount: 20,
        kind: 'grant',
        actorId: null,
        expiresAt: new Date(FUTURE),
      });
      const never = await addCredits(trx, {
        userId: carol.id,
        amount: 5,
        kind: 'purchase',
        actorId: null,
        referenceType: 'payment',
        referenceId: 'pay-1',
      });
      await spendCredits(trx, { userId: carol.id, amount: 10, actorId: null });
      return { soon: soon.lotId, later: later.lotId, never: never.lotId };
    });
    // An expired lot not yet zeroed by the job: not active, though something is left.
    await t.db
      .updateTable('credit_lots')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('id', '=', lots.later)
      .execute();

    const all = await get(reader, `/v1/admin/billing/lots?user_id=${carol.id}`);
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({
      data: [
        {
          id: lots.never,
          user_id: carol.id,
          user_email: carol.email,
          entry_id: expect.any(Number),
          kind: 'purchase',
          amount: 5,
          remaining: 5,
          expires_at: null,
          active: true,
          created_at: expect.any(String),
        },
        {
          id: lots.later,
          user_id: carol.id,
          user_email: carol.email,
          entry_id: expect.any(Number),
          kind: 'grant',
          amount: 20,
          remaining: 20,
          expires_at: expect.any(String),
          active: false,
          created_at: expect.any(String),
        },
        {
          id: lots.soon,
          user_id: carol.id,
          user_email: carol.email,
          entry_id: expect.any(Number),
          kind: 'gift',
          amount: 10,
          remaining: 0,
          expires_at: '2098-01-01T00:00:00.000Z',
          active: false,
          created_at: expect.any(String),
        },
      ],
      meta: { page: 1, per_page: 25, total: 3 },
    });
    const ids = async (query: string) =>
      (await get(reader, `/v1/admin/billing/lots?user_id=${carol.id}&${query}`))
        .json()
        .data.map((lot: { id: number }) => lot.id);
    expect(await ids('active=true')).toEqual([lots.never]);
    expect(await ids('active=false')).toEqual([lots.later, lots.soon]);
    expect(await ids('expiring_before=2099-01-01T00:00:00Z')).toEqual([lots.later, lots.soon]);
    expect(await ids('sort=expires_at:asc')).toEqual([lots.later, lots.soon, lots.never]);
    expect(await ids('sort=expires_at:desc')).toEqual([lots.soon, lots.later, lots.never]);
    expect((await get(reader, `/v1/admin/billing/lots?user_id=${carol.id}&per_page=2&page=2`)).json()).toMatchObject({
      data: [{ id: lots.soon }],
      meta: { page: 2, per_page: 2, total: 3 },
    });
  });

  it.each([
    ['/v1/admin/billing/ledger?kind=bonus', ['kind']],
    ['/v1/admin/billing/ledger?user_id=alice', ['user_id']],
    ['/v1/admin/billing/ledger?created_from=yesterday', ['created_from']],
    ['/v1/admin/billing/ledger?sort=amount:desc', ['sort']],
    ['/v1/admin/billing/ledger?per_page=101', ['per_page']],
    ['/v1/admin/billing/lots?active=yes', ['active']],
    ['/v1/admin/billing/lots?expiring_before=soon', ['expiring_before']],
  ])('400s %s', async (url, path) => {
    const response = await get(reader, url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path }));
  });

  it.each(['/v1/admin/billing/ledger', '/v1/admin/billing/lots'])('%s needs a token and billing.read', async (url) => {
    expect((await get(null, url)).json()).toEqual({ error: 'missing_token' });
    const refused = await get(granter, url);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'billing.read' } });
  });
});

describe('GET /v1/me/billing/ledger', () => {
  it('shows the caller only their own entries, newest first, paged without a total', async () => {
    const player = await createUser(t.db);
    const stranger = await createUser(t.db);
    for (const [amount, reason] of [
      [10, 'First'],
      [20, 'Second'],
      [30, 'Third'],
    ] as const) {
      await grant(granter, { user_id: player.id, amount, reason });
    }
    await grant(granter, { user_id: stranger.id, amount: 99, reason: 'Not yours' });
    await t.db.transaction().execute((trx) =>
      spendCredits(trx, {
        userId: player.id,
        amount: 15,
        actorId: null,
        referenceType: 'game_session',
        referenceId: 'gs-9',
      }),
    );

    const response = await get(player, '/v1/me/billing/ledger');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25 });
    expect(body.data.map((entry: { amount: number }) => entry.amount)).toEqual([-15, 30, 20, 10]);
    expect(body.data[0]).toEqual({
      id: expect.any(Number),
      amount: -15,
      kind: 'spend',
      balance_after: 45,
      reference_type: 'game_session',
      reference_id: 'gs-9',
      reason: null,
      expires_at: null,
      created_at: expect.any(String),
    });
    expect(body.data[1]).toEqual({
      id: expect.any(Number),
      amount: 30,
      kind: 'grant',
      balance_after: 60,
      reference_type: null,
      reference_id: null,
      reason: 'Third',
      expires_at: null,
      created_at: expect.any(String),
    });
    const storedIds = (await ledgerOf(t.db, player.id)).map((entry) => entry.id).reverse();
    expect(body.data.map((entry: { id: number }) => entry.id)).toEqual(storedIds);

    const second = await get(player, '/v1/me/billing/ledger?page=2&per_page=3');
    expect(second.json()).toEqual({
      data: [expect.objectContaining({ amount: 10, reason: 'First' })],
      meta: { page: 2, per_page: 3 },
    });
    expect((await get(player, '/v1/me/billing/ledger?page=3&per_page=3')).json()).toEqual({
      data: [],
      meta: { page: 3, per_page: 3 },
    });

    const theirs = await get(stranger, '/v1/me/billing/ledger');
    expect(theirs.json()).toEqual({
      data: [expect.objectContaining({ amount: 99, reason: 'Not yours' })],
      meta: { page: 1, per_page: 25 },
    });
    const newcomer = await createUser(t.db);
    expect((await get(newcomer, '/v1/me/billing/ledger')).json()).toEqual({
      data: [],
      meta: { page: 1, per_page: 25 },
    });
  });

  it('takes no user filter from the query, 400s bad paging, 401s without a token', async () => {
    const player = await createUser(t.db);
    const stranger = await createUser(t.db);
    await grant(granter, { user_id: stranger.id, amount: 7, reason: 'Not yours' });
    expect((await get(player, `/v1/me/billing/ledger?user_id=${stranger.id}`)).json()).toEqual({
      data: [],
      meta: { page: 1, per_page: 25 },
    });
    for (const [query, path] of [
      ['page=0', ['page']],
      ['per_page=101', ['per_page']],
    ] as const) {
      const response = await get(player, `/v1/me/billing/ledger?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(schemaError({ path }));
    }
    const anonymous = await get(null, '/v1/me/billing/ledger');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'missing_token' });
  });
});
