import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { retryingTransaction } from '../../src/kernel/write/transaction-retry.js';
import { expireLapsedLots, spendCredits } from '../../src/modules/billing/credits/ledger.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { expectConsistentCredits, ledgerOf } from '../modules/billing/credits/fixtures.js';
import { RELIABILITY_FULL } from './fixtures.js';

/**
 * The credit ledger with everything that writes it running at once, from two instances sharing
 * the database (each with its own pool: on PostgreSQL the transactions really overlap; on the
 * embedded database they queue on its one connection and the same answers must come out).
 * Spends have no route of their own: other modules call `spendCredits` in their transaction, as
 * these tests do; grants, gift packs and refunds go through their routes; expiries through the
 * job's function. test/modules/billing/credits/concurrency.test.ts covers one writer kind at a time on
 * one instance; here they are mixed.
 */

/** Spends racing for the last credits: a balance and how many spends of 3 try it. */
const BALANCE = RELIABILITY_FULL ? 1_000 : 100;
const SPENDS = RELIABILITY_FULL ? 500 : 50;
/** Players whose credits are hammered at once in the mixed test, and rounds of it. */
const PLAYERS = RELIABILITY_FULL ? 8 : 3;
const ROUNDS = RELIABILITY_FULL ? 6 : 3;

const apps: TestApp[] = [];
let staff: TestUser;
let packPrice: string;
let packProduct: string;
let next = 0;
/** The instances take turns. */
const app = () => apps[next++ % apps.length]!;

beforeAll(async () => {
  const first = await startTestApp();
  apps.push(first, await startTestApp({ database: await first.testDatabase!.openAnother({ pooled: true }) }));
  staff = await createUser(first.db, ['billing.read', 'billing.write', 'plans.write']);
  const made = await first.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
  });
  packProduct = made.json().id;
  packPrice = `price_ledger_${randomUUID().slice(0, 8)}`;
  const priced = await first.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${packProduct}/prices`,
    token: staff.token,
    payload: { providerPriceId: packPrice, currency: 'usd', unitAmount: 1000 },
  });
  expect(priced.statusCode, priced.body).toBe(201);
});
afterAll(async () => {
  for (const instance of [...apps].reverse()) await instance.close();
});

const db = () => apps[0]!.db;

type SpendOutcome = { ok: true; balance: number } | { ok: false; status: number; code: string; details: unknown };

/** A spend as a module would make it: in its own transaction, retried on a conflict; on the instance whose turn it is. */
function spend(userId: string, amount: number, now?: Date): Promise<SpendOutcome> {
  const { write } = app().kernel;
  return write(({ trx }) =>
    spendCredits(trx, { userId, amount, actorId: null, referenceType: 'test', referenceId: randomUUID(), now }),
  ).then(
    (result) => ({ ok: true as const, balance: result.balance }),
    (error: unknown) => {
      if (error instanceof AppError)
        return { ok: false as const, status: error.status, code: error.code, details: error.details };
      throw error;
    },
  );
}

const grant = (userId: string, amount: number, expiresAt?: Date) =>
  app().request({
    method: 'POST',
    url: '/v1/admin/billing/credits/grant',
    token: staff.token,
    payload: {
      user_id: userId,
      amount,
      reason: 'Concurrency test',
      ...(expiresAt === undefined ? {} : { expires_at: expiresAt.toISOString() }),
    },
  });

const giftPack = (userId: string) =>
  app().request({
    method: 'POST',
    url: '/v1/admin/billing/credits/gift-pack',
    token: staff.token,
    payload: { user_id: userId, product_id: packProduct, quantity: 1, reason: 'Concurrency gift' },
  });

/** A pack bought on the local provider's checkout page: the payment's id. */
async function buyPack(player: TestUser): Promise<string> {
  const first = apps[0]!;
  const checkout = await first.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { priceId: packPrice, successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' },
  });
  expect(checkout.statusCode, checkout.body).toBe(200);
  const paid = await first.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${checkout.json().id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(paid.statusCode).toBe(303);
  const payments = await first.db
    .selectFrom('billing_payments')
    .select('id')
    .where('user_id', '=', player.id)
    .orderBy('created_at', 'desc')
    .execute();
  return payments[0]!.id;
}

/** Refunds run on the first instance: the local provider's record of payments lives in its process. */
const refund = (paymentId: string, amount: number) =>
  apps[0]!.request({
    method: 'POST',
    url: `/v1/admin/billing/payments/${paymentId}/refund`,
    token: staff.token,
    payload: { amount, reason: 'Concurrency refund' },
  });

describe('spends at the edge of the balance', () => {
  it(`balance ${BALANCE}, ${SPENDS} spends of 3 at once on two instances: exactly ${Math.floor(BALANCE / 3)} succeed, the rest are refused, never below zero`, async () => {
    const player = await createUser(db());
    expect((await grant(player.id, BALANCE)).statusCode).toBe(201);
    const outcomes = await Promise.all(Array.from({ length: SPENDS }, () => spend(player.id, 3)));

    const succeeded = outcomes.filter((o) => o.ok);
    const rest = BALANCE % 3;
    expect(succeeded).toHaveLength(Math.floor(BALANCE / 3));
    // Each success answers the balance its own entry left: every value from BALANCE - 3 down to the rest, once.
    expect(succeeded.map((o) => (o.ok ? o.balance : -1)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: succeeded.length }, (_, i) => rest + 3 * i),
    );
    // The documented refusal: 422 insufficient_credits with the balance seen and the amount asked.
    expect(outcomes.filter((o) => !o.ok)).toEqual(
      Array(SPENDS - succeeded.length).fill({
        ok: false,
        status: 422,
        code: 'insufficient_credits',
        details: { balance: rest, requested: 3 },
      }),
    );
    expect(await expectConsistentCredits(db(), player.id)).toBe(rest);
    const billing = await apps[1]!.request({ method: 'GET', url: '/v1/me/billing', token: player.token });
    expect(billing.json().credit_balance).toBe(rest);
  });
});

describe('spends, grants, gifts, expiries and refund clawbacks interleaved', () => {
  it(`${PLAYERS} players, ${ROUNDS} rounds: every answer is a documented one and the ledger, lots and refunds add up`, async () => {
    // The expiry job and spends run an hour after the lots granted with a half-hour life lapse.
    const later = new Date(Date.now() + 60 * 60_000);
    const players = await Promise.all(Array.from({ length: PLAYERS }, () => createUser(db())));
    const payments = new Map<string, string[]>();
    for (const player of players) {
      payments.set(player.id, [await buyPack(player), await buyPack(player)]);
      expect((await grant(player.id, 50)).statusCode).toBe(201);
    }

    const unexpected: string[] = [];
    const expect2xx = (what: string, response: { statusCode: number; body: string }, refusals: string[] = []) => {
      if (response.statusCode < 300) return;
      const code = (JSON.parse(response.body) as { error?: string }).error ?? '';
      if (!refusals.includes(code)) unexpected.push(`${what}: ${response.statusCode} ${response.body}`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      const work: Array<Promise<unknown>> = [];
      for (const player of players) {
        for (let i = 0; i < 8; i++) {
          work.push(
            spend(player.id, 7, later).then((o) => {
              if (!o.ok && o.code !== 'insufficient_credits') unexpected.push(`spend: ${o.status} ${o.code}`);
            }),
          );
        }
        for (let i = 0; i < 3; i++)
          work.push(
            grant(player.id, 20, i === 0 ? new Date(Date.now() + 30 * 60_000) : undefined).then((r) =>
              expect2xx('grant', r),
            ),
          );
        work.push(giftPack(player.id).then((r) => expect2xx('gift', r)));
        // Each payment refunded 300 at a time: the last of four finds 100 left and is refused.
        for (const paymentId of payments.get(player.id)!)
          work.push(refund(paymentId, 300).then((r) => expect2xx('refund', r, ['invalid_request', 'invalid_state'])));
      }
      for (let i = 0; i < 2; i++) work.push(app().kernel.write(({ trx }) => expireLapsedLots(trx, later)));
      await Promise.all(work);
    }
    expect(unexpected).toEqual([]);

    // Lots lapsed since the last expiry run are settled by the next run; then everything must add up.
    await apps[0]!.kernel.write(({ trx }) => expireLapsedLots(trx, later));
    for (const player of players) {
      const balance = await expectConsistentCredits(db(), player.id, later);
      const entries = await ledgerOf(db(), player.id);
      expect(balance).toBe(entries.reduce((sum, entry) => sum + entry.amount, 0));
      for (const paymentId of payments.get(player.id)!) {
        const row = await db()
          .selectFrom('billing_payments')
          .select(['amount', 'amount_refunded', 'credits'])
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow();
        const refunds = await db()
          .selectFrom('billing_refunds')
          .select(['id', 'amount', 'credits_clawed_back', 'shortfall', 'provider_refund_id'])
          .where('payment_id', '=', paymentId)
          .execute();
        const refunded = refunds.reduce((sum, r) => sum + Number(r.amount), 0);
        expect(refunded).toBe(Number(row.amount_refunded));
        expect(refunded).toBeLessThanOrEqual(Number(row.amount));
        // Each refund took its share of the pack (what was left of it, the rest recorded as the shortfall), in proportion.
        const shares = refunds.reduce((sum, r) => sum + r.credits_clawed_back + r.shortfall, 0);
        expect(shares).toBe(Math.floor((row.credits! * refunded) / Number(row.amount)));
        for (const r of refunds) {
          const clawback = entries.find(
            (entry) => entry.kind === 'refund_clawback' && entry.idempotency_key === `refund:${r.provider_refund_id}`,
          );
          expect(clawback).toBeDefined();
          expect(clawback!.amount + r.credits_clawed_back).toBe(0);
        }
      }
    }
  });
});

describe('retryingTransaction', () => {
  const conflict = (code: string) => Object.assign(new Error(`conflict ${code}`), { code });

  it('runs the work again after a deadlock or a serialization failure, and answers what the last attempt did', async () => {
    for (const code of ['40P01', '40001']) {
      let attempts = 0;
      const retried: number[] = [];
      const answer = await retryingTransaction(
        db(),
        async () => {
          attempts += 1;
          if (attempts < 3) throw conflict(code);
          return 'done';
        },
        { onRetry: (_error, attempt) => retried.push(attempt) },
      );
      expect({ answer, attempts, retried }).toEqual({ answer: 'done', attempts: 3, retried: [1, 2] });
    }
  });

  it('is bounded: three conflicts in a row are 503 unavailable (database_contention, retry after 1 s), never a 500', async () => {
    let attempts = 0;
    const failure = await retryingTransaction(db(), async () => {
      attempts += 1;
      throw conflict('40P01');
    }).catch((error: unknown) => error);
    expect(attempts).toBe(3);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      status: 503,
      code: 'unavailable',
      details: { reason: 'database_contention' },
      headers: { 'retry-after': '1' },
    });
  });

  it('does not run again after any other error, nor roll back less than the whole attempt', async () => {
    let attempts = 0;
    const player = await createUser(db());
    const failure = await retryingTransaction(db(), async (trx) => {
      attempts += 1;
      await trx.updateTable('users').set({ display_name: 'changed' }).where('id', '=', player.id).execute();
      throw conflict('23505');
    }).catch((error: unknown) => error);
    expect(attempts).toBe(1);
    expect(failure).toMatchObject({ code: '23505' });
    expect(
      (await db().selectFrom('users').select('display_name').where('id', '=', player.id).executeTakeFirstOrThrow())
        .display_name,
    ).toBeNull();
  });
});
