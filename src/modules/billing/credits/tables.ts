import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp } from '../../../db/column-types.js';

/** Table types of the credit ledger and lots (migration 0010), merged into Kysely's `Tables`. */

export const LEDGER_KINDS = ['purchase', 'grant', 'gift', 'spend', 'refund_clawback', 'expiry', 'adjustment'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];
/** Kinds that add credits (each makes a lot). */
export const ADDITION_KINDS = ['purchase', 'grant', 'gift', 'adjustment'] as const;
export type AdditionKind = (typeof ADDITION_KINDS)[number];
/** Kinds a caller may deduct with (clawbacks and expiries have functions of their own). */
export const DEDUCTION_KINDS = ['spend', 'adjustment'] as const;
export type DeductionKind = (typeof DEDUCTION_KINDS)[number];

export interface CreditLedgerTable {
  id: Generated<number>;
  user_id: string;
  amount: number;
  kind: LedgerKind;
  balance_after: number;
  reference_type: string | null;
  reference_id: string | null;
  actor_id: string | null;
  reason: string | null;
  details: DefaultedJson;
  idempotency_key: string | null;
  idempotency_fingerprint: string | null;
  created_at: DefaultedTimestamp;
}

export interface CreditLotsTable {
  id: Generated<number>;
  user_id: string;
  entry_id: number;
  amount: number;
  remaining: number;
  expires_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  created_at: DefaultedTimestamp;
}

export interface CreditLotDrawsTable {
  entry_id: number;
  lot_id: number;
  amount: number;
}

export type LedgerRow = Selectable<CreditLedgerTable>;
export type LotRow = Selectable<CreditLotsTable>;

/** Migration 0060's view: what credits publishes of its ledger for the family to read (the overview's sums). */
export type CreditMovementsView = Pick<CreditLedgerTable, 'kind' | 'amount' | 'created_at'>;

/**
 * Migration 0063's view: each user's balance, for any area to read (users' detail). bigint: text from
 * the PostgreSQL driver, a number from PGlite.
 */
export interface CreditBalancesView {
  user_id: string;
  balance: number | string;
}

declare module '../../../db/tables.js' {
  interface Tables {
    credit_ledger: CreditLedgerTable;
    /** @published (a view: each ledger entry's kind, amount and time) */
    credit_movements: CreditMovementsView;
    /** @published (a view: each user's balance, the sum of their entries) */
    credit_balances: CreditBalancesView;
    credit_lots: CreditLotsTable;
    credit_lot_draws: CreditLotDrawsTable;
  }
}
