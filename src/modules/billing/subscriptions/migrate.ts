import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { PaymentProviderError, type PaymentProvider } from '../../../adapters/payments/index.js';
import type { AuditActor } from '../../../kernel/audit.js';
import { AppError, invalidRequest, notFound } from '../../../kernel/errors.js';
import type { Writes } from '../../../kernel/write.js';
import type { Tables } from '../../../db/tables.js';
import { syncUserTier } from '../checkout/index.js';
import { activePriceOfProduct, moveSubscriptions, productKindsAndTiers, subscriptionsOfProduct } from './queries.js';

/**
 * Provider calls in flight at once: enough to finish a large plan quickly, few enough not to trip provider rate limits.
 */
const MIGRATE_CONCURRENCY = 4;
const MIGRATED_STATUSES = ['trialing', 'active', 'past_due'] as const;

export interface MigrateInput {
  fromProductId: string;
  toProductId: string;
  newProviderPriceId: string;
  confirm: boolean;
}
export interface MigrateFailure {
  subscriptionId: string;
  userId: string;
  /** The provider's code (`resource_missing`), or `unavailable` / `unexpected_error`. */
  reason: string;
  message: string;
}
export interface MigrateResult {
  migrated: number;
  failed: number;
  total: number;
  failures: MigrateFailure[];
}

/** Runs `work` over `items` with at most `limit` running at once. */
async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * The same subscription moved to the same price is the same provider request, so a retried migration is not applied
 * twice.
 */
function migrationKey(subscriptionId: string, providerPriceId: string): string {
  return `migrate-${createHash('sha256').update(`${subscriptionId}:${providerPriceId}`).digest('hex').slice(0, 40)}`;
}

export async function migratePlanSubscribers(
  db: Kysely<Tables>,
  write: Writes,
  payments: PaymentProvider,
  actor: AuditActor,
  input: MigrateInput,
): Promise<MigrateResult> {
  if (input.confirm !== true)
    throw new AppError(400, 'validation_failed', { confirm: 'must be true to migrate subscribers' });
  const products = await productKindsAndTiers(db, [input.fromProductId, input.toProductId]);
  const from = products.find((p) => p.id === input.fromProductId);
  const to = products.find((p) => p.id === input.toProductId);
  if (!from || !to) throw notFound('not_found', { product_id: !from ? input.fromProductId : input.toProductId });
  if (to.kind !== 'plan') throw invalidRequest({ toProductId: 'must be a plan' });
  const price = await activePriceOfProduct(db, to.id, input.newProviderPriceId);
  if (!price) throw invalidRequest({ newProviderPriceId: 'must be an active price of toProductId' });

  const subscriptions = await subscriptionsOfProduct(db, from.id, MIGRATED_STATUSES);
  const moved: typeof subscriptions = [];
  const failures: MigrateFailure[] = [];
  await eachBounded(subscriptions, MIGRATE_CONCURRENCY, async (subscription) => {
    try {
      await payments.changeSubscriptionPrice(
        subscription.provider_subscription_id,
        input.newProviderPriceId,
        migrationKey(subscription.id, input.newProviderPriceId),
      );
      moved.push(subscription);
    } catch (error) {
      failures.push({
        subscriptionId: subscription.id,
        userId: subscription.user_id,
        reason: error instanceof PaymentProviderError ? (error.code ?? error.kind) : 'unexpected_error',
        message: error instanceof PaymentProviderError ? error.message : 'the payment provider call failed',
      });
    }
  });

  await write(actor, async (w) => {
    if (moved.length > 0) {
      await moveSubscriptions(
        w.trx,
        moved.map((s) => s.id),
        { productId: to.id, providerPriceId: input.newProviderPriceId },
      );
      for (const userId of new Set(moved.map((s) => s.user_id))) await syncUserTier(w.trx, userId);
    }
    await w.audit({
      action: 'plans.subscribers.migrate',
      targetType: 'billing_product',
      targetId: from.id,
      extra: {
        from_product_id: from.id,
        to_product_id: to.id,
        new_provider_price_id: input.newProviderPriceId,
        migrated: moved.length,
        failed: failures.length,
        total: subscriptions.length,
        failures: failures.map((failure) => ({
          subscription_id: failure.subscriptionId,
          provider_code: failure.reason,
        })),
      },
    });
  });
  failures.sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId));
  return { migrated: moved.length, failed: failures.length, total: subscriptions.length, failures };
}
