import { sql, type Insertable, type Kysely } from 'kysely';
import type { PaymentProviderKind, ProviderRefund } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage, type PageRequest } from '../../../kernel/pagination.js';
import type {
  InvoiceView,
  ListInvoicesQuery,
  ListPaymentsQuery,
  PaymentListItemView,
  PaymentView,
  RefundView,
} from './schemas.js';
import type { BillingRefundsTable, InvoiceRow, PaymentRow, PaymentStatus, RefundRow } from './tables.js';
import './tables.js';
import { playerEmailOf } from '../player-email.js';

type Db = Kysely<Tables>;
type WithEmail = { user_email: string | null };

// bigint columns arrive as text from the PostgreSQL driver and as numbers from PGlite.

/** Every column of a payment: the staff views answer each of them. */
const PAYMENT_COLUMNS = [
  'id',
  'user_id',
  'provider',
  'provider_payment_id',
  'product_id',
  'price_id',
  'kind',
  'quantity',
  'credits',
  'amount',
  'currency',
  'amount_refunded',
  'status',
  'checkout_session_id',
  'provider_invoice_id',
  'created_at',
  'updated_at',
] as const;

const INVOICE_COLUMNS = [
  'id',
  'user_id',
  'provider',
  'provider_invoice_id',
  'provider_subscription_id',
  'provider_payment_id',
  'status',
  'amount_due',
  'amount_paid',
  'currency',
  'hosted_url',
  'period_start',
  'period_end',
  'created_at',
  'last_event_at',
] as const;

/** A refund's view and its Idempotency-Key check (refundView leaves the key out of the answer). */
const REFUND_COLUMNS = [
  'id',
  'payment_id',
  'user_id',
  'provider_refund_id',
  'amount',
  'currency',
  'reason',
  'credits_clawed_back',
  'shortfall',
  'actor_id',
  'created_at',
  'source',
  'request_key',
  'request_fingerprint',
] as const;

export function paymentView(row: PaymentRow): PaymentView {
  return { ...row, amount: Number(row.amount), amount_refunded: Number(row.amount_refunded) };
}

export function paymentListItemView(row: PaymentRow & WithEmail): PaymentListItemView {
  return { ...paymentView(row), user_email: row.user_email };
}

export function invoiceView(row: InvoiceRow & WithEmail): InvoiceView {
  return { ...row, amount_due: Number(row.amount_due), amount_paid: Number(row.amount_paid) };
}

export function refundView(row: RefundRow, payment: PaymentRow): RefundView {
  const { request_key: _key, request_fingerprint: _fingerprint, ...refund } = row;
  return { ...refund, amount: Number(row.amount), payment: paymentView(payment) };
}

/** Locked for the whole refund: two refunds of one payment run one after the other. */
export function lockPayment(trx: Db, id: string): Promise<PaymentRow | undefined> {
  return trx.selectFrom('billing_payments').select(PAYMENT_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The payment under the provider's id, locked for the rest of the transaction; undefined: not recorded. */
export function lockPaymentByProviderId(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
): Promise<PaymentRow | undefined> {
  return trx
    .selectFrom('billing_payments')
    .select(PAYMENT_COLUMNS)
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .forUpdate()
    .executeTakeFirst();
}

export function refundByRequestKey(trx: Db, paymentId: string, requestKey: string): Promise<RefundRow | undefined> {
  return trx
    .selectFrom('billing_refunds')
    .select(REFUND_COLUMNS)
    .where('payment_id', '=', paymentId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

export async function listPayments(
  db: Db,
  query: ListPaymentsQuery,
): Promise<{ rows: (PaymentRow & WithEmail)[]; total: number }> {
  let filtered = db.selectFrom('billing_payments');
  const q = query.q;
  if (q !== undefined) {
    filtered = filtered.where((eb) =>
      eb.or([
        // A uuid compared with the text of the id: any other text simply matches no id.
        eb(sql<string>`billing_payments.id::text`, '=', q.toLowerCase()),
        eb('provider_payment_id', '=', q),
        eb(
          'user_id',
          'in',
          eb
            .selectFrom('user_directory')
            .select('user_directory.id')
            .where('user_directory.email', 'ilike', likePattern(q)),
        ),
      ]),
    );
  }
  if (query.user_id !== undefined) filtered = filtered.where('user_id', '=', query.user_id);
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.kind !== undefined) filtered = filtered.where('kind', '=', query.kind);
  if (query.product_id !== undefined) filtered = filtered.where('product_id', '=', query.product_id);
  if (query.created_from !== undefined) filtered = filtered.where('created_at', '>=', new Date(query.created_from));
  if (query.created_to !== undefined) filtered = filtered.where('created_at', '<', new Date(query.created_to));
  return readPage(filtered, query, (matching) =>
    matching
      .select(PAYMENT_COLUMNS)
      .select(playerEmailOf('billing_payments'))
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('id'),
  );
}

export async function listInvoices(
  db: Db,
  query: ListInvoicesQuery,
): Promise<{ rows: (InvoiceRow & WithEmail)[]; total: number }> {
  let filtered = db.selectFrom('billing_invoices');
  if (query.user_id !== undefined) filtered = filtered.where('user_id', '=', query.user_id);
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.created_from !== undefined) filtered = filtered.where('created_at', '>=', new Date(query.created_from));
  if (query.created_to !== undefined) filtered = filtered.where('created_at', '<', new Date(query.created_to));
  return readPage(filtered, query, (matching) =>
    matching
      .select(INVOICE_COLUMNS)
      .select(playerEmailOf('billing_invoices'))
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('id'),
  );
}

/** A player's own invoices, newest first, and how many they have (the (user_id, created_at) index serves both). */
export function invoicesOfPlayer(db: Db, userId: string, page: PageRequest) {
  return readPage(db.selectFrom('billing_invoices').where('user_id', '=', userId), page, (mine) =>
    mine
      .select([
        'id',
        'provider_invoice_id',
        'status',
        'amount_due',
        'amount_paid',
        'currency',
        'hosted_url',
        'period_start',
        'period_end',
        'created_at',
      ])
      .orderBy('created_at', 'desc')
      .orderBy('id'),
  );
}

/** One payment of the player's, if they made any. */
export function anyPaymentOf(db: Db, userId: string) {
  return db.selectFrom('billing_payments').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst();
}

export function refundByProviderId(trx: Db, providerRefundId: string): Promise<RefundRow | undefined> {
  return trx
    .selectFrom('billing_refunds')
    .select(REFUND_COLUMNS)
    .where('provider_refund_id', '=', providerRefundId)
    .executeTakeFirst();
}

/** The money of the payment's refunds recorded so far. */
export async function recordedRefundTotal(trx: Db, paymentId: string): Promise<number> {
  const sum = await trx
    .selectFrom('billing_refunds')
    .select(sql<string>`coalesce(sum(amount), 0)`.as('total'))
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return Number(sum.total);
}

export function insertRefund(trx: Db, refund: Insertable<BillingRefundsTable>): Promise<RefundRow> {
  return trx.insertInto('billing_refunds').values(refund).returningAll().executeTakeFirstOrThrow();
}

/** Sets the payment's running refunded total and the status it gives; answers the payment as updated. */
export function setPaymentRefunded(
  trx: Db,
  paymentId: string,
  refunded: { amount: number; status: PaymentStatus },
): Promise<PaymentRow> {
  return trx
    .updateTable('billing_payments')
    .set({
      amount_refunded: refunded.amount,
      status: refunded.status,
      updated_at: sql`now()`,
    })
    .where('id', '=', paymentId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Serializes, per provider payment id, "is the payment here? if not, keep the refund" with
 * "record the payment, then the refunds kept for it". Without it a refund event and its payment's
 * event running at once each missed the other's uncommitted row, and the refund waited forever.
 * The refund side takes it before looking for the payment; the payment side after inserting the
 * payment and before looking for kept refunds: whichever gets it second sees the other's commit.
 */
export async function lockProviderPayment(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
): Promise<void> {
  const lockKey = `billing-payment:${provider}:${providerPaymentId}`;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
}

export interface ReportedRefund {
  id: string;
  paymentId: string;
  amount: number;
  currency: string;
  status: ProviderRefund['status'];
  reason: string;
}

/**
 * Keeps a refund of a payment not recorded yet (see migration 0035); its latest reported state wins. Call under
 * lockProviderPayment.
 */
export async function keepRefundForLater(
  trx: Db,
  provider: PaymentProviderKind,
  refund: ReportedRefund,
  reportedAt: string,
): Promise<void> {
  const columns = {
    provider_payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    reported_at: reportedAt,
  };
  await trx
    .insertInto('billing_refunds_awaiting_payment')
    .values({ provider, provider_refund_id: refund.id, ...columns })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_refund_id'])
        .doUpdateSet(columns)
        .where('billing_refunds_awaiting_payment.reported_at', '<=', sql<Date>`excluded.reported_at`),
    )
    .execute();
}

/** The refunds kept for this payment, oldest report first. */
export function refundsAwaitingPayment(trx: Db, provider: PaymentProviderKind, providerPaymentId: string) {
  return trx
    .selectFrom('billing_refunds_awaiting_payment')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .orderBy('reported_at')
    .orderBy('provider_refund_id')
    .execute();
}

export async function forgetRefundsAwaitingPayment(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
): Promise<void> {
  await trx
    .deleteFrom('billing_refunds_awaiting_payment')
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .execute();
}
