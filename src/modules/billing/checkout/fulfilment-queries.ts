import type { Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import './tables.js';

/**
 * The statements of fulfilment (fulfilment.ts) on checkout's tables: provider events, checkouts, customers.
 * Payments and invoices are recorded through billing/payments' index.
 */

type Db = Kysely<Tables>;

export interface ReceivedEvent {
  eventId: string;
  type: string;
  occurredAt: string;
}

/** Stores a provider event's id; false when it was stored before (a redelivery). */
export async function storeEventOnce(trx: Db, provider: PaymentProviderKind, event: ReceivedEvent): Promise<boolean> {
  const stored = await trx
    .insertInto('billing_webhook_events')
    .values({
      provider,
      event_id: event.eventId,
      type: event.type,
      occurred_at: event.occurredAt,
    })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return stored !== undefined;
}

export async function expireOpenCheckout(
  trx: Db,
  provider: PaymentProviderKind,
  providerCheckoutId: string,
): Promise<void> {
  await trx
    .updateTable('billing_checkout_sessions')
    .set({ status: 'expired' })
    .where('provider', '=', provider)
    .where('provider_checkout_id', '=', providerCheckoutId)
    .where('status', '=', 'open')
    .execute();
}

/** The player whose customer at the provider this is; undefined: not a customer this service made. */
export async function userOfCustomer(
  trx: Db,
  provider: PaymentProviderKind,
  providerCustomerId: string,
): Promise<string | undefined> {
  const customer = await trx
    .selectFrom('billing_customers')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_customer_id', '=', providerCustomerId)
    .executeTakeFirst();
  return customer?.user_id;
}

/** The player of a subscription stored here; undefined: none stored under that id. */
export async function userOfSubscription(
  trx: Db,
  provider: PaymentProviderKind,
  providerSubscriptionId: string,
): Promise<string | undefined> {
  const subscription = await trx
    .selectFrom('billing_subscriptions')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .executeTakeFirst();
  return subscription?.user_id;
}
