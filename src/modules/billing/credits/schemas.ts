import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, noTextFilter, pagedResponse, pageQuery } from '../../../kernel/pagination.js';
import { LEDGER_KINDS } from './tables.js';

const dateTime = isoDateTime();

export const MAX_GRANT = 1_000_000;

export const grantCreditsBody = z
  .object({
    user_id: z.guid(),
    amount: z.number().int().min(1).max(MAX_GRANT),
    reason: z
      .string()
      .min(3)
      .max(500)
      .describe('Kept on the ledger entry and in the audit row; the player sees it in their ledger.'),
    expires_at: dateTime
      .optional()
      .describe('When what is left of these credits lapses (must be in the future); omitted: never.'),
  })
  .strict();
export type GrantCreditsInput = z.infer<typeof grantCreditsBody>;

export const grantHeaders = z
  .object({
    'idempotency-key': z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'Repeating a grant with the same key and body answers the first result and grants nothing more; the same ' +
          'key with another body is 409 `conflict`.',
      ),
  })
  .loose();

export const grantResult = z
  .object({
    entry_id: z.number().int(),
    balance: z.number().int().describe("The user's balance right after this grant."),
  })
  .describe("The ledger entry made and the user's balance after it.");
export type GrantResult = z.infer<typeof grantResult>;

/** A ledger entry as staff see it. */
const userEmail = z
  .string()
  .nullable()
  .describe("The player's email, so staff see whose it is; null when they have none.");

export const ledgerEntryView = z
  .object({
    id: z.number().int(),
    user_id: z.guid(),
    user_email: userEmail,
    amount: z.number().int().describe('Signed: additions positive, deductions negative.'),
    kind: z.enum(LEDGER_KINDS),
    balance_after: z.number().int().describe("The user's balance right after this entry."),
    reference_type: z.string().nullable(),
    reference_id: z.string().nullable(),
    actor_id: z.guid().nullable().describe('The staff member who made the entry; null: the service.'),
    reason: z.string().nullable(),
    details: z
      .record(z.string(), z.unknown())
      .describe("A clawback's `requested`, `taken` and `shortfall`; an expiry's lot `expires_at`."),
    lot_id: z.number().int().nullable().describe('The lot an addition made; null for deductions.'),
    expires_at: z.date().nullable().describe('When the lot of an addition lapses; null: never, or a deduction.'),
    created_at: z.date(),
  })
  .meta({ id: 'LedgerEntry', description: 'One entry of a credit ledger.' });
export type LedgerEntryView = z.infer<typeof ledgerEntryView>;

export const listLedgerQuery = pageQuery(['created_at'], { field: 'created_at', direction: 'desc' }).extend({
  user_id: z.guid().optional(),
  kind: z.enum(LEDGER_KINDS).optional(),
  reference_type: z.string().min(1).max(100).optional(),
  reference_id: z.string().min(1).max(200).optional(),
  created_from: dateTime.optional().describe('Inclusive lower bound of created_at.'),
  created_to: dateTime.optional().describe('Exclusive upper bound of created_at.'),
});
export type ListLedgerQuery = z.infer<typeof listLedgerQuery>;
export const ledgerPage = pagedResponse(ledgerEntryView);

export const lotView = z
  .object({
    id: z.number().int(),
    user_id: z.guid(),
    user_email: userEmail,
    entry_id: z.number().int().describe('The addition that made the lot.'),
    kind: z.enum(LEDGER_KINDS).describe('The kind of that addition.'),
    amount: z.number().int(),
    remaining: z.number().int(),
    expires_at: z.date().nullable(),
    active: z.boolean().describe('Something is left and it has not lapsed.'),
    created_at: z.date(),
  })
  .meta({ id: 'CreditLot', description: 'A lot of credits: what is left of it and when it expires.' });
export type LotView = z.infer<typeof lotView>;

export const listLotsQuery = pageQuery(['created_at', 'expires_at'], { field: 'created_at', direction: 'desc' }).extend(
  {
    q: noTextFilter,
    user_id: z.guid().optional(),
    active: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional()
      .describe('`true`: lots with something left that have not lapsed; `false`: spent or lapsed lots.'),
    expiring_before: dateTime
      .optional()
      .describe('Lots that lapse before this instant (never-expiring lots excluded).'),
  },
);
export type ListLotsQuery = z.infer<typeof listLotsQuery>;
export const lotsPage = pagedResponse(lotView);

/** The caller's own entries: no staff ids, no internal details. */
export const myLedgerEntryView = ledgerEntryView.pick({
  id: true,
  amount: true,
  kind: true,
  balance_after: true,
  reference_type: true,
  reference_id: true,
  reason: true,
  expires_at: true,
  created_at: true,
});
export type MyLedgerEntryView = z.infer<typeof myLedgerEntryView>;

/** Spec "Pagination": the user credit ledger pages without a total. */
export const myLedgerQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type MyLedgerQuery = z.infer<typeof myLedgerQuery>;
export const myLedgerPage = z
  .object({
    data: z.array(myLedgerEntryView),
    meta: z.object({ page: z.number().int(), per_page: z.number().int() }).strict(),
  })
  .describe("One page of the caller's credit ledger, newest first; `meta` gives the page and its size.");
