import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/kernel/errors.js';
import { addCredits, lockCreditAccount, spendCredits } from '../../../../src/modules/billing/credits/ledger.js';
import { JOB_HANDLERS } from '../../../../src/modules/index.js';
import { JobScheduler } from '../../../../src/modules/operations/scheduled-jobs/scheduler.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { lockWaiterOn, sendingNoticed, sessionPid, waitFor } from '../../../helpers/waiting.js';
import { expectConsistentCredits, ledgerOf, lotsOf } from './fixtures.js';

/**
 * The ledger under load: many grants (over HTTP) and spends (through the ledger API) for one
 * user at once. On PostgreSQL these transactions really overlap (the test pool has several
 * connections), so only the per-user lock keeps the balance exact; on the embedded database
 * they queue on its single connection and the same assertions hold.
 */

let t: TestApp;
let granter: TestUser;

const grant = (payload: object, idempotencyKey?: string) =>
  t.request({
    method: 'POST',
    url: '/v1/admin/billing/credits/grant',
    token: granter.token,
    payload,
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });

/** A spend in its own transaction: the outcome, or the refusal's code. */
const trySpend = (userId: string, amount: number, now?: Date) =>
  t.db
    .transaction()
    .execute((trx) =>
      spendCredits(trx, { userId, amount, actorId: null, referenceType: 'test', referenceId: randomUUID(), now }),
    )
    .then(
      (result) => ({ ok: true as const, balance: result.balance }),
      (error: unknown) => ({ ok: false as const, code: error instanceof AppError ? error.code : String(error) }),
    );

beforeAll(async () => {
  t = await startTestApp();
  granter = await createUser(t.db, ['billing.write']);
});
afterAll(async () => t.close());

describe('concurrent credit writes for one user', () => {
  it('200 parallel grants all land: every entry, lot and audit row, and the exact balance', async () => {
    const player = await createUser(t.db);
    const amounts = Array.from({ length: 200 }, (_, i) => i + 1);
    const responses = await Promise.all(
      amounts.map((amount) => grant({ user_id: player.id, amount, reason: `Grant ${amount}` })),
    );

    expect(responses.map((response) => response.statusCode)).toEqual(amounts.map(() => 201));
    const total = amounts.reduce((sum, amount) => sum + amount, 0);
    const entries = await ledgerOf(t.db, player.id);
    expect(entries).toHaveLength(200);
    expect(entries.map((entry) => entry.amount).sort((a, b) => a - b)).toEqual(amounts);
    expect(await lotsOf(t.db, player.id)).toHaveLength(200);
    // Each answer is the balance right after its own entry, as stored.
    const stored = new Map(entries.map((entry) => [entry.id, entry.balance_after]));
    for (const response of responses) expect(response.json().balance).toBe(stored.get(response.json().entry_id));
    expect(new Set(responses.map((response) => response.json().balance)).size).toBe(200);
    const audits = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'billing.credits.grant')
      .where('target_id', '=', player.id)
      .execute();
    expect(audits).toHaveLength(200);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(total);
  });

  it('50 parallel grants under one idempotency key write once (one entry, one audit row) and answer alike', async () => {
    const player = await createUser(t.db);
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => grant({ user_id: player.id, amount: 75, reason: 'Once only' }, key)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 201));
    expect(new Set(responses.map((response) => response.body)).size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    expect((await ledgerOf(t.db, player.id)).map((entry) => entry.amount)).toEqual([75]);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(75);
    expect(
      await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'billing.credits.grant')
        .where('target_id', '=', player.id)
        .execute(),
    ).toHaveLength(1);
  });

  it('one idempotency key sent for different users at once: exactly one grant lands, the rest are conflicts', async () => {
    // Different users take different locks, so only the unique key decides between them.
    const players = await Promise.all(Array.from({ length: 10 }, () => createUser(t.db)));
    const key = randomUUID();
    const responses = await Promise.all(
      players.map((player) => grant({ user_id: player.id, amount: 5, reason: 'Shared key' }, key)),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, ...Array(9).fill(409)]);
    const winner = players[responses.findIndex((response) => response.statusCode === 201)]!;
    for (const player of players) {
      expect((await ledgerOf(t.db, player.id)).map((entry) => entry.amount)).toEqual(player === winner ? [5] : []);
    }
  });

  it('parallel spends racing for the last credits: exactly as many succeed as the balance allows, never below zero', async () => {
    const player = await createUser(t.db);
    // 25 credits in five lots of different expiry.
    await t.db.transaction().execute(async (trx) => {
      for (const [index, expiresAt] of [
        new Date('2099-03-01Z'),
        null,
        new Date('2099-01-01Z'),
        null,
        new Date('2099-02-01Z'),
      ].entries()) {
        await addCredits(trx, {
          userId: player.id,
          amount: 5,
          kind: 'grant',
          actorId: null,
          expiresAt,
          reason: `lot ${index}`,
        });
      }
    });
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => trySpend(player.id, 1)));

    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(25);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual(
      Array(75).fill({ ok: false, code: 'insufficient_credits' }),
    );
    expect(outcomes.flatMap((outcome) => (outcome.ok ? [outcome.balance] : [])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, i) => i),
    );
    expect(await expectConsistentCredits(t.db, player.id)).toBe(0);
    expect((await lotsOf(t.db, player.id)).map((lot) => lot.remaining)).toEqual([0, 0, 0, 0, 0]);
  });

  it('spends larger than one credit racing: only whole spends succeed and the remainder stays', async () => {
    const player = await createUser(t.db);
    await grant({ user_id: player.id, amount: 10, reason: 'Ten' });
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => trySpend(player.id, 3)));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
    expect(
      outcomes
        .filter((outcome) => !outcome.ok)
        .every((outcome) => !outcome.ok && outcome.code === 'insufficient_credits'),
    ).toBe(true);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(1);
  });

  it('grants and spends interleaved at once keep the ledger exact', async () => {
    const player = await createUser(t.db);
    await grant({ user_id: player.id, amount: 30, reason: 'Start' });
    const work: Array<Promise<{ kind: 'grant' | 'spend'; ok: boolean }>> = [];
    for (let i = 0; i < 60; i++) {
      work.push(
        grant({ user_id: player.id, amount: 2, reason: 'Top-up' }).then((response) => ({
          kind: 'grant',
          ok: response.statusCode === 201,
        })),
      );
      work.push(
        trySpend(player.id, 3).then((outcome) => {
          if (!outcome.ok) expect(outcome.code).toBe('insufficient_credits');
          return { kind: 'spend', ok: outcome.ok };
        }),
      );
    }
    const outcomes = await Promise.all(work);
    expect(outcomes.filter((outcome) => outcome.kind === 'grant' && !outcome.ok)).toEqual([]);
    const spends = outcomes.filter((outcome) => outcome.kind === 'spend' && outcome.ok).length;
    expect(spends).toBeGreaterThan(0);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(150 - 3 * spends);
  });

  it('the expiry job racing with spends expires each lapsed lot once, and spends never draw on them', async () => {
    const T = new Date('2100-01-01T00:00:00.000Z');
    const player = await createUser(t.db);
    const lapsing = await t.db.transaction().execute(async (trx) => {
      const lots = [];
      for (const [amount, expiresAt] of [
        [40, new Date('2099-01-01Z')],
        [15, null],
        [25, new Date('2099-02-01Z')],
      ] as const) {
        lots.push(
          (await addCredits(trx, { userId: player.id, amount, kind: 'grant', actorId: null, expiresAt })).lotId,
        );
      }
      return [lots[0]!, lots[2]!];
    });
    await t.db
      .updateTable('scheduled_jobs')
      .set({ next_run_at: new Date('2200-01-01Z') })
      .execute();
    await t.db.updateTable('scheduled_jobs').set({ next_run_at: T }).where('key', '=', 'expire-credit-lots').execute();
    const scheduler = new JobScheduler({ db: t.db, handlers: JOB_HANDLERS, instanceId: 'race' });

    const [runs, ...outcomes] = await Promise.all([
      scheduler.runDueJobs(T),
      ...Array.from({ length: 20 }, () => trySpend(player.id, 1, T)),
    ]);

    expect(runs.map((run) => run.result)).toEqual(['ok']);
    // Whoever came first (the job, or a spend settling the user's lapsed lots) expired them, once.
    const expiries = (await ledgerOf(t.db, player.id)).filter((entry) => entry.kind === 'expiry');
    expect(expiries.map((entry) => [entry.reference_id, entry.amount]).sort()).toEqual([
      [String(lapsing[0]), -40],
      [String(lapsing[1]), -25],
    ]);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(15);
    expect(await expectConsistentCredits(t.db, player.id, T)).toBe(0);
  });

  it('the expiry job waits for a credit write in flight on the same user, then finds its lots already expired', async () => {
    const T = new Date('2100-01-01T00:00:00.000Z');
    const player = await createUser(t.db);
    const lapsing = await t.db.transaction().execute(async (trx) => {
      await addCredits(trx, { userId: player.id, amount: 15, kind: 'grant', actorId: null });
      return (
        await addCredits(trx, {
          userId: player.id,
          amount: 40,
          kind: 'grant',
          actorId: null,
          expiresAt: new Date('2099-01-01Z'),
        })
      ).lotId;
    });
    await t.db
      .updateTable('scheduled_jobs')
      .set({ next_run_at: new Date('2200-01-01Z') })
      .execute();
    await t.db.updateTable('scheduled_jobs').set({ next_run_at: T }).where('key', '=', 'expire-credit-lots').execute();

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let spent!: () => void;
    const spentInFlight = new Promise<void>((resolve) => (spent = resolve));
    // A spend at T settles the lapsed lot itself (uncommitted), and holds the user until the gate opens.
    let writer: number | undefined;
    const write = t.db.transaction().execute(async (trx) => {
      await lockCreditAccount(trx, player.id);
      const result = await spendCredits(trx, { userId: player.id, amount: 5, actorId: null, now: T });
      if (t.kernel.database.kind === 'postgres') writer = await sessionPid(trx);
      spent();
      await gate;
      return result;
    });
    await spentInFlight;
    let jobDone = false;
    const jobDb = sendingNoticed(t.db);
    const job = new JobScheduler({ db: jobDb.db, handlers: JOB_HANDLERS, instanceId: 'waiting' })
      .runDueJobs(T)
      .finally(() => (jobDone = true));
    // The job waits on the user's lock; on the embedded database, for the one connection the write holds.
    if (writer === undefined) await waitFor(jobDb.sent, 'the expiry job to ask for the connection');
    else await lockWaiterOn(t.db, writer, "the expiry job to wait on the user's lock");
    expect(jobDone).toBe(false);
    release();

    expect((await write).balance).toBe(10);
    const [run] = await job;
    expect(run).toMatchObject({ result: 'ok', summary: { lots: 0, credits: 0 } });
    const entries = await ledgerOf(t.db, player.id);
    expect(
      entries.filter((entry) => entry.kind === 'expiry').map((entry) => [entry.reference_id, entry.amount]),
    ).toEqual([[String(lapsing), -40]]);
    expect(await expectConsistentCredits(t.db, player.id, T)).toBe(10);
  });
});
