import { actorOf } from '../../../kernel/auth.js';
import { idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { CreditsService } from './service.js';
import { grantBillingCredits, listBillingCreditLots, listBillingLedger, listMyBillingLedger } from './route-options.js';

/**
 * Staff: POST /v1/admin/billing/credits/grant, GET /v1/admin/billing/ledger, GET /v1/admin/billing/lots.
 * Player: GET /v1/me/billing/ledger.
 * Gift packs and giftable tiers are in gift-routes.ts (they read the product catalog too).
 */
export function registerCreditRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const credits = new CreditsService(deps.db, deps.write);

  app.post('/v1/admin/billing/credits/grant', grantBillingCredits, async (request, reply) => {
    const granted = await credits.grant(actorOf(request), request.body, request.headers['idempotency-key']);
    return reply.code(201).send(idempotentAnswer(reply, granted));
  });

  app.get('/v1/admin/billing/ledger', listBillingLedger, (request) => credits.listLedger(request.query));

  app.get('/v1/admin/billing/lots', listBillingCreditLots, (request) => credits.listLots(request.query));

  app.get('/v1/me/billing/ledger', listMyBillingLedger, (request) =>
    credits.myLedger(actorOf(request).userId, request.query),
  );
}
