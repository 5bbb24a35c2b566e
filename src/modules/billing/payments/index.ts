/**
 * What other areas use of payments, invoices and refunds: checkout's fulfilment records what the
 * provider reports through these, in its own transaction; checkout reads a player's invoices.
 */
export { fillSubscriptionPayments, linkInvoicePayment, settleInvoicePayments } from './invoice-payments.js';
export { lockInvoice } from './invoice-payment-queries.js';
export { anyPaymentOf, invoicesOfPlayer } from './queries.js';
export { insertPaymentOnce, raiseRefundedAmount, upsertReportedInvoice } from './record-queries.js';
export {
  keepRefundForLater,
  lockPaymentByProviderId,
  lockProviderPayment,
  recordRefund,
  recordRefundsAwaitingPayment,
} from './refund-recording.js';
export type { RecordedRefund } from './refund-recording.js';
