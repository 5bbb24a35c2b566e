import { auditPicture } from '../../../kernel/audit.js';
import type { PaymentRow } from './tables.js';

/**
 * What a refund's audit row keeps of its payment: how much of it is refunded (a number: bigint
 * columns come back as text from PostgreSQL) and its status. The refund itself is the row's extra.
 */
export const paymentPicture = auditPicture<PaymentRow>({
  id: false,
  user_id: false,
  provider: false,
  provider_payment_id: false,
  product_id: false,
  price_id: false,
  kind: false,
  quantity: false,
  credits: false,
  amount: false,
  currency: false,
  amount_refunded: { show: Number },
  status: true,
  checkout_session_id: false,
  provider_invoice_id: false,
  created_at: false,
  updated_at: false,
});
