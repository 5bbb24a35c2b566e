import { auditPicture } from '../../../kernel/audit.js';
import type { LedgerRow } from './tables.js';

/**
 * What a grant's or a gift's audit row keeps of the ledger entry it wrote: the entry, the amount
 * and the balance after it, with its lot (id, and the expiry as the request sent it). A gift adds
 * the pack it gave: product, name, quantity and credits each (its entry's amount shows as
 * `credits`). Who, why and the idempotency key are the audit row's own fields.
 */
export const ledgerEntryPicture = auditPicture<
  LedgerRow & {
    lot_id: number;
    expires_at: string | null;
    product_name: string;
    quantity: number;
    credits_per_pack: number;
    credits: number;
  }
>({
  id: { key: 'entry_id' },
  user_id: false,
  amount: true,
  kind: false,
  balance_after: { key: 'balance' },
  reference_type: false,
  reference_id: { key: 'product_id' },
  actor_id: false,
  reason: false,
  details: false,
  idempotency_key: false,
  idempotency_fingerprint: false,
  created_at: false,
  lot_id: true,
  expires_at: true,
  product_name: true,
  quantity: true,
  credits_per_pack: true,
  credits: true,
});
