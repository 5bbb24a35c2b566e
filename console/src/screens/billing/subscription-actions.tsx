import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import './billing.css';

export type Subscription = ListItem<ListBody<'/v1/admin/billing/subscriptions'>>;

const LIVE = new Set(['trialing', 'active', 'past_due']);
const dateOf = (iso: string | null) =>
  iso === null ? 'the end of the period' : new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

/**
 * Cancel a live subscription at the end of its period, or resume one set to cancel: each confirmed
 * with a reason and saying what the player keeps or loses.
 */
export function SubscriptionActions({ subscription }: { subscription: Subscription }) {
  const permissions = usePermissions();
  const missing = permissions.can('billing.write') ? undefined : 'Needs billing.write';
  const path = { path: { id: subscription.id } };
  const who = subscription.user_email ?? 'the player';
  const plan = subscription.product_name ?? 'the plan';
  const invalidates = [['billing'], ['user', subscription.user_id]];
  const cancel = useWrite({
    call: (reason: string) =>
      unwrap(
        api.POST('/v1/admin/billing/subscriptions/{id}/cancel', {
          params: path,
          body: { when: 'period_end', reason },
        }),
      ),
    success: `${who}'s ${plan} ends on ${dateOf(subscription.current_period_end)}`,
    failure: 'Could not cancel the subscription',
    invalidates,
  });
  const resume = useWrite({
    call: (reason: string) =>
      unwrap(api.POST('/v1/admin/billing/subscriptions/{id}/resume', { params: path, body: { reason } })),
    success: `${who}'s ${plan} renews again`,
    failure: 'Could not resume the subscription',
    invalidates,
  });

  if (!LIVE.has(subscription.status)) return <span className="muted">No actions ({subscription.status})</span>;
  return (
    <div className="button-row">
      {subscription.cancel_at_period_end ? (
        <Confirm
          key="resume"
          trigger="Resume…"
          isDisabled={missing !== undefined}
          disabledReason={missing}
          title={`Resume ${who}'s ${plan}?`}
          consequence={`It renews on ${dateOf(subscription.current_period_end)} and is charged again then, instead of ending.`}
          confirmLabel="Resume"
          reason={ruleOf('POST /v1/admin/billing/subscriptions/{id}/resume', 'reason')}
          onConfirm={(reason) => resume.mutateAsync(reason)}
        />
      ) : (
        <Confirm
          key="cancel"
          trigger="Cancel at period end…"
          // Quiet in a list or a timeline row; the dialog's own button says it loudly.
          triggerClassName="btn btn-quiet"
          destructive
          isDisabled={missing !== undefined}
          disabledReason={missing}
          title={`Cancel ${who}'s ${plan}?`}
          consequence={
            `It stays active, with its tier, until ${dateOf(subscription.current_period_end)}; then it ends ` +
            'instead of renewing and the player loses the tier. No money is refunded. You can resume it until then.'
          }
          confirmLabel="Cancel at period end"
          reason={ruleOf('POST /v1/admin/billing/subscriptions/{id}/cancel', 'reason')}
          onConfirm={(reason) => cancel.mutateAsync(reason)}
        />
      )}
    </div>
  );
}
