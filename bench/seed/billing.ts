import type { SeedSizes } from '../options.js';
import { FIRST_SUBSCRIBER, PLAN_PRODUCTS, benchUuidSql } from './fixtures.js';
import { pastInstant } from './people.js';
import type { SeedStep } from './seed-step.js';

/** Each ledger user gets this history: grant, purchase, spend, gift, spend (balance 720). */
const LEDGER_ENTRIES_PER_USER = 5;

/** The catalog, 1,000 local-provider subscribers on the plan operation 21 moves, and the credit ledger. */
export function billingSteps(sizes: SeedSizes): SeedStep[] {
  const firstSub = FIRST_SUBSCRIBER;
  const lastSub = FIRST_SUBSCRIBER + sizes.localSubscriptions - 1;
  const ledgerUsers = Math.min(sizes.activeUsers, Math.ceil(sizes.ledgerEntries / LEDGER_ENTRIES_PER_USER));
  const { current, next } = PLAN_PRODUCTS;
  return [
    {
      label: 'billing catalog',
      sql: `
        INSERT INTO billing_products (id, kind, name, credits, tier_key, sort_order) VALUES
          ('${current.id}', 'plan', 'Plus (2025 price)', NULL, 'plus', 1),
          ('${next.id}', 'plan', 'Plus (2026 price)', NULL, 'plus', 2),
          (${benchUuidSql('product', '3')}, 'plan', 'Pro', NULL, 'pro', 3),
          (${benchUuidSql('product', '4')}, 'credit_pack', 'Credits 500', 500, NULL, 10),
          (${benchUuidSql('product', '5')}, 'credit_pack', 'Credits 1200', 1200, NULL, 11),
          (${benchUuidSql('product', '6')}, 'credit_pack', 'Credits 3000', 3000, NULL, 12);
        INSERT INTO billing_prices (product_id, product_kind, provider_price_id, currency, unit_amount, "interval") VALUES
          ('${current.id}', 'plan', '${current.priceId}', 'usd', ${current.amount}, 'month'),
          ('${next.id}', 'plan', '${next.priceId}', 'usd', ${next.amount}, 'month'),
          (${benchUuidSql('product', '3')}, 'plan', 'local_price_bench_pro', 'usd', 1999, 'month'),
          (${benchUuidSql('product', '4')}, 'credit_pack', 'local_price_bench_credits_500', 'usd', 499, NULL),
          (${benchUuidSql('product', '5')}, 'credit_pack', 'local_price_bench_credits_1200', 'usd', 999, NULL),
          (${benchUuidSql('product', '6')}, 'credit_pack', 'local_price_bench_credits_3000', 'usd', 1999, NULL);`,
    },
    {
      label: `${sizes.localSubscriptions} local-provider subscriptions`,
      // The provider's own record of them is bench/seed/local-payments.ts (DATA_DIR/local-payments.json).
      sql: `
        INSERT INTO billing_customers (user_id, provider, provider_customer_id)
        SELECT ${benchUuidSql('user', 'i')}, 'local', 'cus_local_bench_' || i FROM generate_series(${firstSub}, ${lastSub}) AS i;
        INSERT INTO billing_subscriptions (user_id, provider, provider_subscription_id, product_id, provider_price_id, status,
                                           current_period_end, created_at, provider_customer_id, last_event_at)
        SELECT ${benchUuidSql('user', 'i')}, 'local', 'sub_local_bench_' || i, '${current.id}', '${current.priceId}',
               CASE WHEN i % 20 = 0 THEN 'past_due' WHEN i % 20 = 1 THEN 'trialing' ELSE 'active' END,
               now() + (1 + i % 30) * interval '1 day', ${pastInstant('i', 365)}, 'cus_local_bench_' || i, now() - interval '1 day'
          FROM generate_series(${firstSub}, ${lastSub}) AS i;
        UPDATE users SET tier = 'plus' WHERE id IN (SELECT user_id FROM billing_subscriptions);`,
    },
    {
      label: `${ledgerUsers * LEDGER_ENTRIES_PER_USER} credit ledger entries with lots and draws`,
      // Entries in user then step order, so ids (identity) follow each user's history as the service writes it.
      sql: `
        INSERT INTO credit_ledger (user_id, amount, kind, balance_after, reason, created_at)
        SELECT ${benchUuidSql('user', 'u')}, e.amount, e.kind, e.balance_after, e.reason,
               now() - (1 + u % 300) * interval '1 day' + e.step * interval '1 hour'
          FROM generate_series(1, ${ledgerUsers}) AS u
         CROSS JOIN (VALUES (1, 100, 'grant', 100, 'welcome bonus'), (2, 500, 'purchase', 600, NULL), (3, -50, 'spend', 550, NULL),
                            (4, 200, 'gift', 750, 'gift from a friend'), (5, -30, 'spend', 720, NULL)) AS e(step, amount, kind, balance_after, reason)
         ORDER BY u, e.step;
        -- The first spend drew on the grant; the second on the gift (earliest expiry first).
        INSERT INTO credit_lots (user_id, entry_id, amount, remaining, expires_at, created_at)
        SELECT user_id, id, amount,
               CASE kind WHEN 'grant' THEN amount - 50 WHEN 'gift' THEN amount - 30 ELSE amount END,
               CASE kind WHEN 'gift' THEN now() + interval '90 days' END, created_at
          FROM credit_ledger WHERE amount > 0;
        INSERT INTO credit_lot_draws (entry_id, lot_id, amount)
        SELECT s.id, l.id, -s.amount
          FROM credit_ledger s
          JOIN credit_ledger a ON a.user_id = s.user_id AND a.kind = CASE WHEN s.amount = -50 THEN 'grant' ELSE 'gift' END
          JOIN credit_lots l ON l.entry_id = a.id
         WHERE s.kind = 'spend';`,
    },
  ];
}
