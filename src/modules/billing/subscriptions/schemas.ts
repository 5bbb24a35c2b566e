import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';

/** Operation 21 body (camelCase like the rest of the plans group). */
export const migrateSubscribersBody = z
  .object({
    fromProductId: z.guid(),
    toProductId: z.guid(),
    newProviderPriceId: z.string().min(1),
    confirm: z.boolean(),
  })
  .strict()
  .meta({
    examples: [
      {
        fromProductId: '5b0c3f9e-7d4a-4c8e-9f1a-2e6b8d3c4a71',
        toProductId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
        newProviderPriceId: 'price_1QgH2kLmN3oP4qR5',
        confirm: true,
      },
    ],
  });

export const migrateSubscribersResult = z
  .object({
    migrated: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
    failures: z
      .array(
        z.object({
          subscriptionId: z.guid(),
          userId: z.guid().describe('The subscriber.'),
          reason: z.string().describe("The payment provider's code (`resource_missing`), or `unavailable`."),
          message: z.string().describe("The provider's words."),
        }),
      )
      .describe('Each subscription that did not move (it stays on its price), by id.'),
  })
  .describe('How many subscriptions moved, and how many failed, with why each failed.')
  .meta({
    examples: [
      {
        migrated: 998,
        failed: 2,
        total: 1000,
        failures: [
          {
            subscriptionId: '3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e',
            userId: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
            reason: 'resource_missing',
            message: "No such subscription: 'sub_gone'",
          },
          {
            subscriptionId: '8e7d6c5b-4a3f-4e2d-8c1b-0a9f8e7d6c5b',
            userId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
            reason: 'unavailable',
            message: 'the payment provider could not be reached',
          },
        ],
      },
    ],
  });

// The staff subscription routes sit with the other /v1/admin/billing routes: snake_case.

/** Every status migration 0008 allows; the provider's words (Stripe's subscription statuses). */
export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
] as const;
const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');
const reason = z.string().trim().min(3).max(500).describe('Why: kept in the audit log.');

export const subscriptionIdParams = z.object({
  id: z.guid().describe("The subscription's id in this service (not the provider's)."),
});

export const listSubscriptionsQuery = pageQuery(['created_at', 'current_period_end'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  product_id: z.guid().optional(),
  user_id: z.guid().optional(),
  cancel_at_period_end: booleanQuery
    .optional()
    .describe('`true`: only those set to end at the end of their period; `false`: only the others.'),
});
export type ListSubscriptionsQuery = z.infer<typeof listSubscriptionsQuery>;

export const subscriptionBody = z
  .object({
    id: z.guid(),
    user_id: z.guid(),
    user_email: z.string().nullable().describe("The subscriber's email; null when the user has none."),
    provider: z.string().describe('`local` or `stripe`.'),
    provider_subscription_id: z.string(),
    provider_customer_id: z.string().nullable(),
    product_id: z
      .guid()
      .nullable()
      .describe("The plan; null when the provider's price matches no product of the catalog."),
    product_name: z.string().nullable(),
    provider_price_id: z.string().nullable(),
    status: z
      .enum(SUBSCRIPTION_STATUSES)
      .describe("trialing, active and past_due give the plan's tier; canceled and incomplete_expired are final."),
    cancel_at_period_end: z
      .boolean()
      .describe('True: the subscription ends at `current_period_end` instead of renewing.'),
    current_period_end: z.date().nullable().describe('When the period paid for ends (next renewal).'),
    canceled_at: z.date().nullable().describe('When it was canceled, or set to cancel at period end.'),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'Subscription', description: 'A subscription: its plan, state and period.' });
export type SubscriptionView = z.infer<typeof subscriptionBody>;
export const subscriptionsBody = pagedResponse(subscriptionBody);

export const cancelSubscriptionBody = z
  .object({
    when: z
      .enum(['period_end', 'now'])
      .default('period_end')
      .describe(
        '`period_end` (default): the subscription runs to the end of the period paid for, then ends; `now`: it ' +
          'ends at once and the tier goes with it (no refund is made).',
      ),
    reason,
  })
  .strict();
export type CancelSubscriptionInput = z.infer<typeof cancelSubscriptionBody>;

export const resumeSubscriptionBody = z.object({ reason }).strict();
export type ResumeSubscriptionInput = z.infer<typeof resumeSubscriptionBody>;

export const simulateRenewalBody = z
  .object({
    outcome: z
      .enum(['paid', 'failed'])
      .describe(
        '`paid`: the next period is charged and paid; `failed`: the charge fails, the invoice stays open and the ' +
          'subscription is past_due.',
      ),
  })
  .strict();
export type SimulateRenewalInput = z.infer<typeof simulateRenewalBody>;
