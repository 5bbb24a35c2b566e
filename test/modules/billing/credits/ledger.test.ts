import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/kernel/errors.js';
import {
  addCredits,
  balanceOf,
  clawbackPurchase,
  spendCredits,
  type AddCreditsInput,
  type ClawbackInput,
  type SpendCreditsInput,
} from '../../../../src/modules/billing/credits/ledger.js';
import { JOB_HANDLERS } from '../../../../src/modules/index.js';
import { JobScheduler } from '../../../../src/modules/operations/scheduled-jobs/scheduler.js';
import { createUser, startTestApp, type TestApp } from '../../../helpers/app.js';
import { rejectionOf } from '../../../helpers/expectations.js';
import { drawsOf, expectConsistentCredits, ledgerOf, lotsOf } from './fixtures.js';

/**
 * The ledger API other billing code calls (fulfilment, refunds, spends), on a real database:
 * which lots a deduction draws from, refusals, idempotency, refund clawback, and lot expiry
 * (lazily on a write, and by the scheduled job driven through the scheduler with a test clock).
 * After every scenario the whole ledger of the user is checked for consistency.
 */

let t: TestApp;

/** Expiry dates in 2099 are in the future for every write; the job's clock sits in 2100. */
const day = (n: number) => new Date(Date.UTC(2099, 0, n));
const T = new Date('2100-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const FAR_FUTURE = new Date('2200-01-01T00:00:00.000Z');

const add = (input: Omit<AddCreditsInput, 'actorId' | 'kind'> & Partial<Pick<AddCreditsInput, 'kind' | 'actorId'>>) =>
  t.db.transaction().execute((trx) => addCredits(trx, { kind: 'grant', actorId: null, ...input }));
const spend = (input: Omit<SpendCreditsInput, 'actorId'>) =>
  t.db.transaction().execute((trx) => spendCredits(trx, { actorId: null, ...input }));
const clawback = (input: Omit<ClawbackInput, 'actorId'>) =>
  t.db.transaction().execute((trx) => clawbackPurchase(trx, { actorId: null, ...input }));

async function newPlayer() {
  return (await createUser(t.db)).id;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('spending', () => {
  it('draws from the lot that lapses first, never-lapsing lots last, then the oldest', async () => {
    const user = await newPlayer();
    const neverOld = await add({ userId: user, amount: 100 });
    const lateExpiry = await add({ userId: user, amount: 50, expiresAt: day(180) });
    const earlyExpiry = await add({ userId: user, amount: 30, expiresAt: day(10) });
    const neverNew = await add({ userId: user, amount: 20 });
    expect(neverNew.balance).toBe(200);

    const first = await spend({
      userId: user,
      amount: 90,
      referenceType: 'game_session',
      referenceId: 'gs-1',
      reason: 'Play time',
    });
    expect(first).toEqual({ entryId: expect.any(Number), balance: 110, replayed: false });
    expect(await drawsOf(t.db, first.entryId)).toEqual([
      { lot_id: neverOld.lotId, amount: 10 },
      { lot_id: lateExpiry.lotId, amount: 50 },
      { lot_id: earlyExpiry.lotId, amount: 30 },
    ]);
    const second = await spend({ userId: user, amount: 100 });
    expect(await drawsOf(t.db, second.entryId)).toEqual([
      { lot_id: neverOld.lotId, amount: 90 },
      { lot_id: neverNew.lotId, amount: 10 },
    ]);
    expect((await lotsOf(t.db, user)).map((lot) => lot.remaining)).toEqual([0, 0, 0, 10]);

    const [, , , , spent] = await ledgerOf(t.db, user);
    expect(spent).toMatchObject({
      id: first.entryId,
      kind: 'spend',
      amount: -90,
      balance_after: 110,
      reference_type: 'game_session',
      reference_id: 'gs-1',
      reason: 'Play time',
      actor_id: null,
    });
    expect(await expectConsistentCredits(t.db, user)).toBe(10);
    expect(await balanceOf(t.db, user)).toBe(10);
  });

  it('refuses more than the balance with insufficient_credits and writes nothing', async () => {
    const user = await newPlayer();
    await add({ userId: user, amount: 30, expiresAt: day(5) });
    await add({ userId: user, amount: 12 });
    const before = { entries: await ledgerOf(t.db, user), lots: await lotsOf(t.db, user) };

    const error = await rejectionOf(spend({ userId: user, amount: 43 }), AppError);
    expect([error.status, error.code, error.details]).toEqual([
      422,
      'insufficient_credits',
      { balance: 42, requested: 43 },
    ]);
    expect({ entries: await ledgerOf(t.db, user), lots: await lotsOf(t.db, user) }).toEqual(before);

    // The whole balance can be spent, to exactly zero, and then nothing more.
    expect((await spend({ userId: user, amount: 42 })).balance).toBe(0);
    expect((await rejectionOf(spend({ userId: user, amount: 1 }), AppError)).details).toEqual({
      balance: 0,
      requested: 1,
    });
    expect(await expectConsistentCredits(t.db, user)).toBe(0);
  });

  it('refuses an unknown user (404) and an amount that is not a positive integer (422)', async () => {
    const ghost = randomUUID();
    expect((await rejectionOf(spend({ userId: ghost, amount: 1 }), AppError)).code).toBe('not_found');
    expect((await rejectionOf(add({ userId: ghost, amount: 1 }), AppError)).code).toBe('not_found');
    const user = await newPlayer();
    await add({ userId: user, amount: 10 });
    for (const amount of [0, -5, 2.5]) {
      const error = await rejectionOf(spend({ userId: user, amount }), AppError);
      expect([error.status, error.code]).toEqual([422, 'invalid_request']);
      expect((await rejectionOf(add({ userId: user, amount }), AppError)).code).toBe('invalid_request');
    }
    expect(await expectConsistentCredits(t.db, user)).toBe(10);
  });

  it('a repeated idempotency key answers the first spend; another request under it is a conflict', async () => {
    const user = await newPlayer();
    const other = await newPlayer();
    await add({ userId: user, amount: 50 });
    await add({ userId: other, amount: 50 });
    const key = `spend:${randomUUID()}`;
    const first = await spend({
      userId: user,
      amount: 20,
      referenceType: 'order',
      referenceId: 'o-1',
      idempotencyKey: key,
    });
    await spend({ userId: user, amount: 5 });

    expect(
      await spend({ userId: user, amount: 20, referenceType: 'order', referenceId: 'o-1', idempotencyKey: key }),
    ).toEqual({ ...first, replayed: true });
    for (const changed of [
      { userId: user, amount: 21 },
      { userId: user, amount: 20, referenceId: 'o-2' },
      { userId: other, amount: 20, referenceId: 'o-1' },
    ]) {
      const error = await rejectionOf(
        spend({ referenceType: 'order', referenceId: 'o-1', idempotencyKey: key, ...changed }),
        AppError,
      );
      expect([error.status, error.code]).toEqual([409, 'conflict']);
    }
    // A key names one kind of write: an addition under a spend's key is a conflict too.
    expect((await rejectionOf(add({ userId: user, amount: 20, idempotencyKey: key }), AppError)).code).toBe('conflict');
    expect((await ledgerOf(t.db, user)).map((entry) => entry.amount)).toEqual([50, -20, -5]);
    expect(await expectConsistentCredits(t.db, user)).toBe(25);
    expect(await expectConsistentCredits(t.db, other)).toBe(50);

    const addKey = `stripe:evt_${randomUUID()}`;
    const bought = await add({
      userId: user,
      amount: 500,
      kind: 'purchase',
      referenceType: 'payment',
      referenceId: 'p-1',
      idempotencyKey: addKey,
    });
    expect(
      await add({
        userId: user,
        amount: 500,
        kind: 'purchase',
        referenceType: 'payment',
        referenceId: 'p-1',
        idempotencyKey: addKey,
      }),
    ).toEqual({ ...bought, replayed: true });
    expect(await lotsOf(t.db, user)).toHaveLength(2);
    expect(await expectConsistentCredits(t.db, user)).toBe(525);
  });

  it('expires lapsed lots of the user before a write, so a deduction never draws on them', async () => {
    const user = await newPlayer();
    const lapsing = await add({ userId: user, amount: 50, expiresAt: day(1) });
    const lasting = await add({ userId: user, amount: 30 });

    // At T the 50 have lapsed: 40 is more than what is really left, and the refusal writes nothing.
    expect((await rejectionOf(spend({ userId: user, amount: 40, now: T }), AppError)).details).toEqual({
      balance: 30,
      requested: 40,
    });
    expect(await ledgerOf(t.db, user)).toHaveLength(2);

    const spent = await spend({ userId: user, amount: 20, now: T });
    expect(spent.balance).toBe(10);
    const entries = await ledgerOf(t.db, user);
    expect(
      entries
        .slice(2)
        .map((entry) => [entry.kind, entry.amount, entry.balance_after, entry.reference_type, entry.reference_id]),
    ).toEqual([
      ['expiry', -50, 30, 'credit_lot', String(lapsing.lotId)],
      ['spend', -20, 10, null, null],
    ]);
    expect(await drawsOf(t.db, spent.entryId)).toEqual([{ lot_id: lasting.lotId, amount: 20 }]);
    expect(await expectConsistentCredits(t.db, user, T)).toBe(10);
  });

  it('refuses an addition whose expiry is not in the future', async () => {
    const user = await newPlayer();
    const error = await rejectionOf(add({ userId: user, amount: 10, expiresAt: new Date(Date.now() - 1) }), AppError);
    expect([error.status, error.code, error.details]).toEqual([
      422,
      'invalid_request',
      { reason: 'expires_at must be in the future' },
    ]);
    expect(await ledgerOf(t.db, user)).toEqual([]);
  });
});

describe('refund clawback', () => {
  const purchase = (userId: string, paymentId: string, amount: number, expiresAt?: Date) =>
    add({ userId, amount, kind: 'purchase', referenceType: 'payment', referenceId: paymentId, expiresAt });

  it('takes back all of an unspent pack and leaves other credits alone', async () => {
    const user = await newPlayer();
    const grant = await add({ userId: user, amount: 100 });
    const pack = await purchase(user, 'pay-full', 500);
    const result = await clawback({
      userId: user,
      referenceType: 'payment',
      referenceId: 'pay-full',
      credits: 500,
      reason: 'Refunded',
    });
    expect(result).toEqual({ entryId: expect.any(Number), balance: 100, replayed: false, taken: 500, shortfall: 0 });
    expect(await drawsOf(t.db, result.entryId)).toEqual([{ lot_id: pack.lotId, amount: 500 }]);
    expect((await lotsOf(t.db, user)).map((lot) => [lot.id, lot.remaining])).toEqual([
      [grant.lotId, 100],
      [pack.lotId, 0],
    ]);
    expect((await ledgerOf(t.db, user)).at(-1)).toMatchObject({
      kind: 'refund_clawback',
      amount: -500,
      balance_after: 100,
      reference_type: 'payment',
      reference_id: 'pay-full',
      reason: 'Refunded',
      details: { requested: 500, taken: 500, shortfall: 0 },
    });
    expect(await expectConsistentCredits(t.db, user)).toBe(100);
  });

  it('takes what is left of a partly spent pack and records the shortfall, never going negative', async () => {
    const user = await newPlayer();
    await add({ userId: user, amount: 100 });
    // The pack lapses first, so spending drew on it before the grant.
    const pack = await purchase(user, 'pay-part', 500, day(30));
    await spend({ userId: user, amount: 300 });

    const result = await clawback({
      userId: user,
      referenceType: 'payment',
      referenceId: 'pay-part',
      credits: 500,
      reason: 'Refunded',
    });
    expect(result).toMatchObject({ balance: 100, taken: 200, shortfall: 300 });
    expect(await drawsOf(t.db, result.entryId)).toEqual([{ lot_id: pack.lotId, amount: 200 }]);
    expect((await ledgerOf(t.db, user)).at(-1)).toMatchObject({
      kind: 'refund_clawback',
      amount: -200,
      details: { requested: 500, taken: 200, shortfall: 300 },
    });
    expect(await expectConsistentCredits(t.db, user)).toBe(100);

    // A second refund of the same pack finds nothing left: an entry of 0 records its whole shortfall.
    const again = await clawback({
      userId: user,
      referenceType: 'payment',
      referenceId: 'pay-part',
      credits: 100,
      reason: 'Second refund',
    });
    expect(again).toMatchObject({ balance: 100, taken: 0, shortfall: 100 });
    expect(await drawsOf(t.db, again.entryId)).toEqual([]);
    expect((await ledgerOf(t.db, user)).at(-1)).toMatchObject({
      kind: 'refund_clawback',
      amount: 0,
      balance_after: 100,
      details: { requested: 100, taken: 0, shortfall: 100 },
    });
    expect(await expectConsistentCredits(t.db, user)).toBe(100);
  });

  it('a partial refund takes only its share, and a repeated key answers the first clawback', async () => {
    const user = await newPlayer();
    await purchase(user, 'pay-half', 1000);
    const key = `refund:${randomUUID()}`;
    const first = await clawback({
      userId: user,
      referenceType: 'payment',
      referenceId: 'pay-half',
      credits: 400,
      idempotencyKey: key,
    });
    expect(first).toMatchObject({ balance: 600, taken: 400, shortfall: 0 });
    expect(
      await clawback({
        userId: user,
        referenceType: 'payment',
        referenceId: 'pay-half',
        credits: 400,
        idempotencyKey: key,
      }),
    ).toEqual({ ...first, replayed: true });
    expect(
      (
        await rejectionOf(
          clawback({
            userId: user,
            referenceType: 'payment',
            referenceId: 'pay-half',
            credits: 500,
            idempotencyKey: key,
          }),
          AppError,
        )
      ).code,
    ).toBe('conflict');
    expect(await ledgerOf(t.db, user)).toHaveLength(2);
    expect(await expectConsistentCredits(t.db, user)).toBe(600);
  });

  it('404s a reference the user bought nothing under, writing nothing', async () => {
    const user = await newPlayer();
    const stranger = await newPlayer();
    await add({ userId: user, amount: 100, referenceType: 'payment', referenceId: 'pay-grant' });
    await purchase(stranger, 'pay-theirs', 100);
    for (const referenceId of ['pay-none', 'pay-grant', 'pay-theirs']) {
      const error = await rejectionOf(
        clawback({ userId: user, referenceType: 'payment', referenceId, credits: 10 }),
        AppError,
      );
      expect([error.status, error.code, error.details]).toEqual([
        404,
        'not_found',
        { reason: 'no credit purchase with this reference' },
      ]);
    }
    expect(await ledgerOf(t.db, user)).toHaveLength(1);
    expect(await expectConsistentCredits(t.db, user)).toBe(100);
    expect(await expectConsistentCredits(t.db, stranger)).toBe(100);
  });
});

describe('the expire-credit-lots job', () => {
  const scheduler = () => new JobScheduler({ db: t.db, handlers: JOB_HANDLERS, instanceId: 'credits-test' });
  const job = () =>
    t.db.selectFrom('scheduled_jobs').selectAll().where('key', '=', 'expire-credit-lots').executeTakeFirstOrThrow();

  const makeDue = () =>
    t.db.updateTable('scheduled_jobs').set({ next_run_at: T }).where('key', '=', 'expire-credit-lots').execute();

  beforeEach(async () => {
    // Only this job is due at the test clock; the seeded others wait far beyond it.
    await t.db.updateTable('scheduled_jobs').set({ next_run_at: FAR_FUTURE }).execute();
    // Lots other tests left to lapse by T are expired first, so each run's summary is this test's own.
    await makeDue();
    await scheduler().runDueJobs(T);
    await makeDue();
  });

  it('is seeded every 15 minutes with a handler', async () => {
    expect(await job()).toMatchObject({ cron: '*/15 * * * *', active: true });
    expect(Object.hasOwn(JOB_HANDLERS, 'expire-credit-lots')).toBe(true);
  });

  it('writes an expiry entry for what is left of each lapsed lot, zeroes it, and skips spent and live lots', async () => {
    const alice = await newPlayer();
    const bob = await newPlayer();
    const partlySpent = await add({ userId: alice, amount: 100, expiresAt: day(1) });
    const spentOut = await add({ userId: alice, amount: 20, expiresAt: day(2) });
    const never = await add({ userId: alice, amount: 50 });
    const notYet = await add({ userId: alice, amount: 40, expiresAt: new Date('2101-01-01T00:00:00Z') });
    // Earliest expiry first: 100 empty partlySpent, then 20 empty spentOut.
    await spend({ userId: alice, amount: 50 });
    await spend({ userId: alice, amount: 70 });
    await add({ userId: alice, amount: 30, expiresAt: day(3) }); // lapses with all 30 left
    const bobLot = await add({ userId: bob, amount: 25, expiresAt: day(200) });
    await spend({ userId: bob, amount: 5 });
    const aliceBefore = await ledgerOf(t.db, alice);
    expect((await lotsOf(t.db, alice)).map((lot) => lot.remaining)).toEqual([0, 0, 50, 40, 30]);

    const [run, ...others] = await scheduler().runDueJobs(T);
    expect(others).toEqual([]);
    expect(run).toMatchObject({ result: 'ok', error: null, summary: { users: 2, lots: 2, credits: 50 } });
    expect(await job()).toMatchObject({
      last_result: 'ok',
      last_run_at: T,
      next_run_at: new Date(T.getTime() + 15 * MINUTE),
    });

    const aliceNew = (await ledgerOf(t.db, alice)).slice(aliceBefore.length);
    const lapsedLot = (await lotsOf(t.db, alice))[4]!;
    expect(
      aliceNew.map((entry) => [
        entry.kind,
        entry.amount,
        entry.balance_after,
        entry.reference_type,
        entry.reference_id,
        entry.actor_id,
      ]),
    ).toEqual([['expiry', -30, 90, 'credit_lot', String(lapsedLot.id), null]]);
    expect(await drawsOf(t.db, aliceNew[0]!.id)).toEqual([{ lot_id: lapsedLot.id, amount: 30 }]);
    expect((await lotsOf(t.db, alice)).map((lot) => [lot.id, lot.remaining])).toEqual([
      [partlySpent.lotId, 0],
      [spentOut.lotId, 0],
      [never.lotId, 50],
      [notYet.lotId, 40],
      [lapsedLot.id, 0],
    ]);
    expect((await ledgerOf(t.db, bob)).at(-1)).toMatchObject({
      kind: 'expiry',
      amount: -20,
      balance_after: 0,
      reference_id: String(bobLot.lotId),
    });
    expect(await expectConsistentCredits(t.db, alice, T)).toBe(90);
    expect(await expectConsistentCredits(t.db, bob, T)).toBe(0);

    // The next run finds nothing more to do: an already-zero lot writes nothing.
    const [next] = await scheduler().runDueJobs(new Date(T.getTime() + 15 * MINUTE));
    expect(next).toMatchObject({ result: 'ok', summary: { users: 0, lots: 0, credits: 0 } });
    expect(await ledgerOf(t.db, alice)).toHaveLength(aliceBefore.length + 1);
    expect(await ledgerOf(t.db, bob)).toHaveLength(3);
  });

  it('expires lots of a user that lapse in the same run in lapse order, each with its own entry', async () => {
    const user = await newPlayer();
    const second = await add({ userId: user, amount: 7, expiresAt: day(20) });
    const first = await add({ userId: user, amount: 5, expiresAt: day(10) });
    await add({ userId: user, amount: 3 });
    const [run] = await scheduler().runDueJobs(T);
    expect(run).toMatchObject({ result: 'ok', summary: { lots: 2, credits: 12 } });
    expect(
      (await ledgerOf(t.db, user)).slice(3).map((entry) => [entry.reference_id, entry.amount, entry.balance_after]),
    ).toEqual([
      [String(first.lotId), -5, 10],
      [String(second.lotId), -7, 3],
    ]);
    expect(await expectConsistentCredits(t.db, user, T)).toBe(3);
  });
});
