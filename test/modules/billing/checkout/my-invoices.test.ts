import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

/**
 * GET /v1/me/billing/invoices: the caller's invoices in the list envelope, newest first, with
 * `meta.total` counting the caller's own (never another player's).
 */

let t: TestApp;
let player: TestUser;
const created = ['2024-03-01T10:00:00.000Z', '2024-02-01T10:00:00.000Z', '2024-01-01T10:00:00.000Z'];

async function storeInvoice(userId: string, providerInvoiceId: string, createdAt: string, amount: number) {
  await t.db
    .insertInto('billing_invoices')
    .values({
      user_id: userId,
      provider: 'local',
      provider_invoice_id: providerInvoiceId,
      status: 'paid',
      amount_due: amount,
      amount_paid: amount,
      currency: 'usd',
      created_at: new Date(createdAt),
      last_event_at: new Date(createdAt),
    })
    .execute();
}

beforeAll(async () => {
  t = await startTestApp();
  player = await createUser(t.db);
  // Stored oldest last, so the order comes from the list, not from insertion.
  for (const [i, at] of [...created].reverse().entries()) await storeInvoice(player.id, `in_mine_${i}`, at, 100 * i);
  await storeInvoice((await createUser(t.db)).id, 'in_someone_else', '2024-04-01T10:00:00.000Z', 5);
});
afterAll(async () => {
  await t.close();
});

const list = (query = '', token = player.token) =>
  t.request({ method: 'GET', url: `/v1/me/billing/invoices${query}`, token });

describe('GET /v1/me/billing/invoices', () => {
  it("answers `{ data, meta: { page, per_page, total } }`: the caller's invoices, newest first", async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25, total: 3 });
    expect(body.data.map((invoice: { created_at: string }) => invoice.created_at)).toEqual(created);
    expect(body.data[0]).toEqual({
      id: expect.any(String),
      provider_invoice_id: 'in_mine_2',
      status: 'paid',
      amount_due: 200,
      amount_paid: 200,
      currency: 'usd',
      hosted_url: null,
      period_start: null,
      period_end: null,
      created_at: created[0],
    });
  });

  it('keeps the same total on every page; past the last page, no rows and still the total', async () => {
    const first = (await list('?per_page=2')).json();
    const second = (await list('?per_page=2&page=2')).json();
    expect(first.meta).toEqual({ page: 1, per_page: 2, total: 3 });
    expect(second.meta).toEqual({ page: 2, per_page: 2, total: 3 });
    expect([...first.data, ...second.data].map((invoice: { created_at: string }) => invoice.created_at)).toEqual(
      created,
    );
    expect((await list('?per_page=2&page=7')).json()).toEqual({ data: [], meta: { page: 7, per_page: 2, total: 3 } });
  });

  it("counts only the caller's invoices: none is total 0", async () => {
    const newcomer = await createUser(t.db);
    expect((await list('', newcomer.token)).json()).toEqual({ data: [], meta: { page: 1, per_page: 25, total: 0 } });
  });

  it('ignores a parameter it does not take, as every list does (query schemas drop unknown keys)', async () => {
    const response = await list('?per_page=2&limit=1&offset=2');
    expect(response.statusCode).toBe(200);
    expect(response.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
  });

  it.each(['?page=0', '?per_page=0', '?per_page=101', '?page=x'])('400 SchemaError for %s', async (query) => {
    const response = await list(query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
  });
});
