// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import {
  grantCreditsBody,
  grantHeaders,
  grantResult,
  ledgerPage,
  listLedgerQuery,
  listLotsQuery,
  lotsPage,
  myLedgerPage,
  myLedgerQuery,
} from './schemas.js';

const READ = { perms: ['billing.read'] } as const;
/** A grant alone: what a support agent holds to compensate a player. */
const GRANT = { perms: ['billing.write', 'billing.grant'] } as const;
const tags = ['billing'];

export const grantBillingCredits = {
  config: {
    ...GRANT,
    errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request', 'invalid_state'] },
  },
  schema: {
    operationId: 'grantBillingCredits',
    tags,
    summary: 'Grant credits to a user',
    description:
      'Adds `amount` credits to a user as a new lot (lapsing at `expires_at`, or never) and answers the ledger ' +
      'entry and balance. Idempotent with an `Idempotency-Key` header. In depth: ' +
      '[docs/api/billing.md](docs/api/billing.md#grant-credits-to-a-user).',
    headers: grantHeaders,
    body: grantCreditsBody,
    response: { 201: grantResult },
  },
} as const;

export const listBillingLedger = {
  config: READ,
  schema: {
    operationId: 'listBillingLedger',
    tags,
    summary: 'The credit ledger of every user',
    description:
      'Paged with total, newest first by default (`sort=created_at:asc|desc`). Filters `user_id`, `kind`, ' +
      '`reference_type`, `reference_id`, `created_from` (inclusive), `created_to` (exclusive), and `q` ' +
      '(reason or reference id, substring); all combine.',
    querystring: listLedgerQuery,
    response: { 200: ledgerPage },
  },
} as const;

export const listBillingCreditLots = {
  config: READ,
  schema: {
    operationId: 'listBillingCreditLots',
    tags,
    summary: 'Credit lots',
    description:
      'Every addition of credits and what is left of it. Paged with total; sort `created_at` (default, newest ' +
      'first) or `expires_at` (never-expiring last). Filters `user_id`, `active` (`true`: something left and ' +
      'not lapsed), `expiring_before`.',
    querystring: listLotsQuery,
    response: { 200: lotsPage },
  },
} as const;

export const listMyBillingLedger = {
  schema: {
    operationId: 'listMyBillingLedger',
    tags,
    summary: "The caller's credit ledger",
    description:
      "The caller's own entries, newest first; paged without a total (`meta` holds `page` and `per_page`; a " +
      'page shorter than `per_page` is the last).',
    querystring: myLedgerQuery,
    response: { 200: myLedgerPage },
  },
} as const;
