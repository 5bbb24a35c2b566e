import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedSizes } from '../options.js';
import { FIRST_SUBSCRIBER, PLAN_PRODUCTS, benchUser, subscriberIds } from './fixtures.js';

/**
 * The local payment provider keeps its customers and subscriptions in DATA_DIR/local-payments.json
 * (src/adapters/payments/local.ts, LocalState), read once at start. Operation 21 asks it to move
 * each subscription, so the seeded subscriptions must exist there too, matching the database rows.
 */
export function writeLocalPaymentsState(dataDir: string, sizes: SeedSizes): void {
  const customers: Record<string, { userId: string; email: string }> = {};
  const subscriptions: Record<string, object> = {};
  const day = 86_400_000;
  for (let n = FIRST_SUBSCRIBER; n < FIRST_SUBSCRIBER + sizes.localSubscriptions; n += 1) {
    const { subscriptionId, customerId } = subscriberIds(n);
    const user = benchUser(n);
    customers[customerId] = { userId: user.id, email: user.email };
    subscriptions[subscriptionId] = {
      id: subscriptionId,
      customerId,
      status: n % 20 === 0 ? 'past_due' : n % 20 === 1 ? 'trialing' : 'active',
      providerPriceId: PLAN_PRODUCTS.current.priceId,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: new Date(Date.now() + (1 + (n % 30)) * day).toISOString(),
      canceledAt: null,
      metadata: {},
      interval: 'month',
      unitAmount: PLAN_PRODUCTS.current.amount,
      currency: 'usd',
    };
  }
  const state = {
    customers,
    checkouts: {},
    subscriptions,
    payments: {},
    invoices: {},
    coupons: {},
    promotionCodes: {},
    refundsByKey: {},
  };
  writeFileSync(join(dataDir, 'local-payments.json'), JSON.stringify(state), { mode: 0o600 });
}
