import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { countRows, offsetOf } from '../../../kernel/pagination.js';
import type { InvoiceView, ListInvoicesQuery, ListPaymentsQuery, PaymentView, RefundView } from './schemas.js';
import type { RefundRow } from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;
// Checkout's tables, as every area sees them in `Tables` (importing checkout would close a circle through fulfilment).
export type PaymentRow = Selectable<Tables['billing_payments']>;
type InvoiceRow = Selectable<Tables['billing_invoices']>;

// bigint columns arrive as text from the PostgreSQL driver and as numbers from PGlite.

export function paymentView(row: PaymentRow): PaymentView {
  return { ...row, amount: Number(row.amount), amount_refunded: Number(row.amount_refunded) };
}

export function invoiceView(row: InvoiceRow): InvoiceView {
  return { ...row, amount_due: Number(row.amount_due), amount_paid: Number(row.amount_paid) };
}

export function refundView(row: RefundRow, payment: PaymentRow): RefundView {
  const { request_key: _key, request_fingerprint: _fingerprint, ...refund } = row;
  return { ...refund, amount: Number(row.amount), payment: paymentView(payment) };
}

/** Locked for the whole refund: two refunds of one payment run one after the other. */
export function lockPayment(trx: Db, id: string): Promise<PaymentRow | undefined> {
  return trx.selectFrom('billing_payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function refundByRequestKey(trx: Db, paymentId: string, requestKey: string): Promise<RefundRow | undefined> {
  return trx
    .selectFrom('billing_refunds')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

export async function listPayments(db: Db, query: ListPaymentsQuery): Promise<{ rows: PaymentRow[]; total: number }> {
  let filtered = db.selectFrom('billing_payments');
  if (query.user_id !== undefined) filtered = filtered.where('user_id', '=', query.user_id);
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.kind !== undefined) filtered = filtered.where('kind', '=', query.kind);
  if (query.product_id !== undefined) filtered = filtered.where('product_id', '=', query.product_id);
  if (query.created_from !== undefined) filtered = filtered.where('created_at', '>=', new Date(query.created_from));
  if (query.created_to !== undefined) filtered = filtered.where('created_at', '<', new Date(query.created_to));
  const [rows, total] = await Promise.all([
    filtered
      .selectAll()
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('id')
      .limit(query.per_page)
      .offset(offsetOf(query))
      .execute(),
    countRows(filtered),
  ]);
  return { rows, total };
}

export async function listInvoices(db: Db, query: ListInvoicesQuery): Promise<{ rows: InvoiceRow[]; total: number }> {
  let filtered = db.selectFrom('billing_invoices');
  if (query.user_id !== undefined) filtered = filtered.where('user_id', '=', query.user_id);
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.created_from !== undefined) filtered = filtered.where('created_at', '>=', new Date(query.created_from));
  if (query.created_to !== undefined) filtered = filtered.where('created_at', '<', new Date(query.created_to));
  const [rows, total] = await Promise.all([
    filtered
      .selectAll()
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('id')
      .limit(query.per_page)
      .offset(offsetOf(query))
      .execute(),
    countRows(filtered),
  ]);
  return { rows, total };
}
