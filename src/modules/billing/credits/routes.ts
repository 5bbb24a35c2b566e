import { actorOf } from '../../../kernel/auth.js';
import { idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
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
import { CreditsService } from './service.js';

const READ = { perms: ['billing.read'] } as const;
/** A grant alone: what a support agent holds to compensate a player. */
const GRANT = { perms: ['billing.write', 'billing.grant'] } as const;
const tags = ['billing'];

/**
 * Staff: POST /v1/admin/billing/credits/grant, GET /v1/admin/billing/ledger, GET /v1/admin/billing/lots.
 * Player: GET /v1/me/billing/ledger.
 * Gift packs and giftable tiers are in gift-routes.ts (they read the product catalog too).
 */
export function registerCreditRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const credits = new CreditsService(deps.db, deps.write);

  app.post(
    '/v1/admin/billing/credits/grant',
    {
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
    },
    async (request, reply) => {
      const granted = await credits.grant(actorOf(request), request.body, request.headers['idempotency-key']);
      return reply.code(201).send(idempotentAnswer(reply, granted));
    },
  );

  app.get(
    '/v1/admin/billing/ledger',
    {
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
    },
    (request) => credits.listLedger(request.query),
  );

  app.get(
    '/v1/admin/billing/lots',
    {
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
    },
    (request) => credits.listLots(request.query),
  );

  app.get(
    '/v1/me/billing/ledger',
    {
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
    },
    (request) => credits.myLedger(actorOf(request).userId, request.query),
  );
}
