import { LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { Fulfilment } from '../checkout/index.js';
import { migratePlanSubscribers as migrateSubscribers } from './migrate.js';
import { BillingSubscriptionsService, RenewalSimulation } from './service.js';
import {
  cancelBillingSubscription,
  listBillingSubscriptions,
  migratePlanSubscribers,
  resumeBillingSubscription,
  simulateBillingSubscriptionRenewal,
} from './route-options.js';

export function registerBillingSubscriptionRoutes(app: ZodApp, deps: Deps<'db' | 'log' | 'payments' | 'write'>): void {
  const service = new BillingSubscriptionsService(deps.db, deps.write, deps.payments);

  app.get('/v1/admin/billing/subscriptions', listBillingSubscriptions, (request) => service.list(request.query));

  app.post('/v1/admin/billing/subscriptions/:id/cancel', cancelBillingSubscription, (request) =>
    service.cancel(actorOf(request), request.params.id, request.body),
  );

  app.post('/v1/admin/billing/subscriptions/:id/resume', resumeBillingSubscription, (request) =>
    service.resume(actorOf(request), request.params.id, request.body),
  );

  if (deps.payments instanceof LocalPaymentProvider) {
    const simulation = new RenewalSimulation(
      deps.db,
      deps.write,
      deps.payments,
      new Fulfilment(deps.write, deps.payments.kind, deps.log),
    );
    app.post('/v1/admin/billing/subscriptions/:id/simulate-renewal', simulateBillingSubscriptionRenewal, (request) =>
      simulation.renew(actorOf(request), request.params.id, request.body),
    );
  }

  app.post('/v1/admin/plans/subscribers/migrate', migratePlanSubscribers, (request) =>
    migrateSubscribers(deps.db, deps.write, deps.payments, actorOf(request), request.body),
  );
}
