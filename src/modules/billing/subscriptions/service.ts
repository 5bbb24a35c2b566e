import type { Kysely } from 'kysely';
import type { PaymentProvider, ProviderSubscription } from '../../../adapters/payments/index.js';
import type { LocalPaymentProvider } from '../../../adapters/payments/local.js';
import type { BillingSubscriptionStatus, Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidState, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { applyProviderSubscription, type Fulfilment, LIVE_STATUSES } from '../checkout/index.js';
import { atProvider } from '../provider-errors.js';
import type { Writes } from '../../../kernel/write.js';
import { subscriptionPicture } from './audit-picture.js';
import {
  findSubscriptionView,
  listSubscriptions,
  lockSubscription,
  readSubscriptionState,
  type SubscriptionState,
} from './queries.js';
import type {
  CancelSubscriptionInput,
  ListSubscriptionsQuery,
  ResumeSubscriptionInput,
  SimulateRenewalInput,
  SubscriptionView,
} from './schemas.js';

type Db = Kysely<Tables>;

/** Final statuses: nothing cancels, resumes or renews them. */
const ENDED: BillingSubscriptionStatus[] = ['canceled', 'incomplete_expired'];

/** A subscription's state, as refusals and events name it (its audit picture is the same two columns). */
const stateOf = (row: { status: string; cancel_at_period_end: boolean }) => ({
  status: row.status,
  cancel_at_period_end: row.cancel_at_period_end,
});

function refuse(reason: string, row: SubscriptionState): never {
  throw invalidState({ reason, ...stateOf(row) });
}

/**
 * A row made under another provider (the service was switched from local to Stripe) has an id this provider does not
 * know.
 */
function checkProvider(row: SubscriptionState, provider: PaymentProvider): void {
  if (row.provider !== provider.kind)
    throw invalidState({
      reason: `the subscription belongs to the ${row.provider} payment provider, not the configured ${provider.kind} \
one`,
      provider: row.provider,
    });
}

function checkNotEnded(row: SubscriptionState): void {
  if (ENDED.includes(row.status)) refuse('the subscription has ended', row);
}

/**
 * Staff cancel and resume. Each holds the subscription's row lock from the first read to the
 * commit, provider call included, so two changes of one subscription queue up and the second
 * sees what the first left. The provider answers with the subscription as it now is; that answer
 * goes through the same `applyProviderSubscription` as webhook events, so the row and the tier
 * are right at once, and the webhook that follows finds nothing newer to apply.
 */
export class BillingSubscriptionsService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly payments: PaymentProvider,
  ) {}

  async list(query: ListSubscriptionsQuery) {
    const { rows, total } = await listSubscriptions(this.db, query);
    return paged(rows, query, total);
  }

  cancel(actor: Actor, id: string, input: CancelSubscriptionInput): Promise<SubscriptionView> {
    return this.#change(actor, id, {
      check: (row) => {
        checkNotEnded(row);
        if (input.when === 'period_end' && row.cancel_at_period_end)
          refuse('the subscription is already set to cancel at the end of its period', row);
      },
      call: (row) => this.payments.cancelSubscription(row.provider_subscription_id, input.when),
      deleted: (answer) => input.when === 'now' || answer.status === 'canceled',
      action: 'billing.subscription.cancel',
      event: 'billing.subscription_canceled',
      reason: input.reason,
      extra: { when: input.when },
    });
  }

  resume(actor: Actor, id: string, input: ResumeSubscriptionInput): Promise<SubscriptionView> {
    return this.#change(actor, id, {
      check: (row) => {
        if (!LIVE_STATUSES.includes(row.status))
          refuse('only a trialing, active or past_due subscription can be resumed', row);
        if (!row.cancel_at_period_end) refuse('the subscription is not set to cancel at the end of its period', row);
      },
      call: (row) => this.payments.resumeSubscription(row.provider_subscription_id),
      deleted: (answer) => answer.status === 'canceled',
      action: 'billing.subscription.resume',
      event: 'billing.subscription_resumed',
      reason: input.reason,
      extra: {},
    });
  }

  #change(
    actor: Actor,
    id: string,
    change: {
      check: (row: SubscriptionState) => void;
      call: (row: SubscriptionState) => Promise<ProviderSubscription>;
      deleted: (answer: ProviderSubscription) => boolean;
      action: string;
      event: string;
      reason: string;
      extra: Record<string, unknown>;
    },
  ): Promise<SubscriptionView> {
    return this.write(actor, async (w) => {
      const before = await lockSubscription(w.trx, id);
      if (before === undefined) throw notFound();
      checkProvider(before, this.payments);
      change.check(before);
      const answer = await atProvider(() => change.call(before), { withMessage: true });
      await applyProviderSubscription(w.trx, this.payments.kind, before.user_id, answer, {
        deleted: change.deleted(answer),
        occurredAt: new Date().toISOString(),
      });
      const after = (await findSubscriptionView(w.trx, id))!;
      const ids = { user_id: before.user_id, provider_subscription_id: before.provider_subscription_id };
      await w.auditRow(subscriptionPicture, {
        action: change.action,
        targetType: 'billing_subscription',
        targetId: id,
        reason: change.reason,
        before,
        after,
        extra: { ...change.extra, ...ids },
      });
      await w.publish({
        kind: 'dashboard',
        name: change.event,
        payload: {
          subscription_id: id,
          ...ids,
          product_id: after.product_id,
          ...change.extra,
          ...stateOf(after),
          current_period_end: after.current_period_end?.toISOString() ?? null,
        },
      });
      return after;
    });
  }
}

/**
 * The local provider's renewal, on staff request, for testing what a real renewal does: the
 * provider's events go through fulfilment one by one in their own transactions, exactly as
 * Stripe's webhooks would. So no row lock is held around them (fulfilment would wait on it), and
 * the audit row is written after they commit, on its own: a crash in between loses the audit
 * row of a simulated renewal, never a change of money.
 */
export class RenewalSimulation {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly provider: LocalPaymentProvider,
    private readonly fulfilment: Fulfilment,
  ) {}

  async renew(actor: Actor, id: string, input: SimulateRenewalInput): Promise<SubscriptionView> {
    const before = await readSubscriptionState(this.db, id);
    if (before === undefined) throw notFound();
    checkProvider(before, this.provider);
    checkNotEnded(before);
    const events = await atProvider(
      async () => this.provider.renewSubscription(before.provider_subscription_id, input.outcome),
      { withMessage: true },
    );
    for (const event of events) await this.fulfilment.process(event);
    const after = await findSubscriptionView(this.db, id);
    if (after === undefined) throw notFound(); // the user was deleted meanwhile, and the subscription with them
    await this.write(actor, (w) =>
      w.auditRow(subscriptionPicture, {
        action: 'billing.subscription.simulate_renewal',
        targetType: 'billing_subscription',
        targetId: id,
        before,
        after,
        extra: {
          outcome: input.outcome,
          user_id: before.user_id,
          provider_subscription_id: before.provider_subscription_id,
          events: events.map((event) => event.type),
        },
      }),
    );
    return after;
  }
}
