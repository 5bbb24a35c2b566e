import { actorOf } from '../../kernel/auth.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { ZodApp } from '../../kernel/zod-app.js';
import { migratePlanSubscribers } from './migrate.js';
import { migrateSubscribersBody, migrateSubscribersResult } from './schemas.js';

export function registerBillingSubscriptionRoutes(app: ZodApp, kernel: Kernel): void {
  app.post('/v1/admin/plans/subscribers/migrate', {
    config: { perms: ['plans.write'] },
    schema: {
      tags: ['plans'],
      summary: 'Migrate a plan\'s subscribers to a new price',
      description: 'Moves every trialing, active or past_due subscription on `fromProductId` to `newProviderPriceId` (an active price of the plan `toProductId`) at the provider, without proration, 4 at a time; each moved subscription gets the new product and its user the new plan\'s tier. Per-subscription provider failures are counted in `failed`. Errors: 400 `validation_failed` when `confirm` is not true; 404 `not_found` for an unknown product; 422 `invalid_request` when `toProductId` is not a plan or the price is not an active price of it. Audited once (`plans.subscribers.migrate`, failures listed).',
      body: migrateSubscribersBody,
      response: { 200: migrateSubscribersResult },
    },
  }, (request) => migratePlanSubscribers(kernel.db, kernel.payments, actorOf(request), request.body));
}
