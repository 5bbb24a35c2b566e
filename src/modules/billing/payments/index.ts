/** What other areas use of payments and refunds. */
export {
  keepRefundForLater,
  lockPaymentByProviderId,
  lockProviderPayment,
  recordRefund,
  recordRefundsAwaitingPayment,
} from './refund-recording.js';
export type { RecordedRefund } from './refund-recording.js';
