import { type ReactNode, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'wouter';
import { type Permissions, usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { ChoiceInput } from '../../ui/fields';
import { UserLink } from '../../ui/names';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { RefundPayment } from '../billing/refund-payment';
import { SubscriptionActions } from '../billing/subscription-actions';
import { type Happening, KINDS, type Kind, mergeSources, useTimelineSources } from './timeline-sources';
import type { UserProfile } from './types';

const STEP = 25;

/** One timeline of what happened to the player, newest first, filterable by kind (kept in the address). */
export function PlayerTimeline({ user, permissions }: { user: UserProfile; permissions: Permissions }) {
  const [filters, setFilters] = useSearchState(['kind'] as const);
  const [limit, setLimit] = useState(STEP);
  const sources = useTimelineSources(user, permissions, limit);
  // A kind the caller cannot read (a shared link from billing staff) shows everything instead.
  const kind = (sources.some((source) => source.kind === filters.kind) ? filters.kind : '') as Kind | '';
  const { happenings, cut } = mergeSources(sources, kind);
  const pending = sources.some((source) => (kind === '' || source.kind === kind) && source.isPending);
  const choices = [
    { id: '', label: 'Everything' },
    ...KINDS.filter((choice) => sources.some((source) => source.kind === choice.id)),
  ];

  return (
    <section aria-labelledby="timeline" className="stack">
      <div className="section-header">
        <h2 id="timeline">Timeline</h2>
        <ChoiceInput label="Show" value={kind} choices={choices} onChange={(next) => setFilters({ kind: next })} />
      </div>
      {sources.map((source) =>
        source.error === null ? null : (
          <div key={source.kind}>
            <p className="hint">{KINDS.find((choice) => choice.id === source.kind)?.label} could not be read:</p>
            <ProblemNote error={source.error} />
          </div>
        ),
      )}
      {happenings.length === 0 ? (
        <p className="empty">{pending ? 'Loading…' : 'Nothing has happened here yet.'}</p>
      ) : (
        <ol className="player-timeline" aria-label="What happened, newest first">
          {happenings.map((happening) => (
            <li key={`${happening.kind}-${happening.id}`} className={`happening happening-${happening.kind}`}>
              <span className="happening-kind">{KINDS.find((choice) => choice.id === happening.kind)?.label}</span>
              <Time value={happening.at} />
              <div className="happening-text">
                <Describe happening={happening} user={user} />
              </div>
            </li>
          ))}
        </ol>
      )}
      {sources.map((source) =>
        source.capped === undefined || (kind !== '' && kind !== source.kind) ? null : (
          <p key={source.kind} className="hint">
            {source.capped}
          </p>
        ),
      )}
      {cut ? (
        <Button
          className="btn"
          isDisabled={pending || limit >= 100}
          onPress={() => setLimit((shown) => Math.min(shown + STEP, 100))}
        >
          {limit >= 100 ? 'Showing the most this page reads' : 'Show older'}
        </Button>
      ) : null}
    </section>
  );
}

const ACTIONS: Record<string, string> = {
  'users.ban': 'Banned',
  'users.unban': 'Unbanned',
  'users.sign_out': 'Signed out everywhere',
  'users.self_sign_out': 'Signed themselves out everywhere',
  'users.soft_delete': 'Deleted',
  'users.restore': 'Restored',
  'users.self_delete': 'Asked to delete their account',
  'users.self_delete_cancel': 'Called off their account deletion',
  'users.update': 'Profile changed',
  'users.role_grant': 'Role granted',
  'billing.payment.refund': 'Payment refunded',
  'billing.subscription.cancel': 'Subscription set to cancel',
  'billing.subscription.resume': 'Subscription resumed',
};

const money = (minor: number, currency: string) => {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
};

const signed = (amount: number) => (amount > 0 ? `+${amount}` : String(amount));

function Describe({ happening, user }: { happening: Happening; user: UserProfile }) {
  const by = (id: string | null, fallback?: string | null) =>
    id === null || id === user.id ? null : (
      <>
        {' '}
        by <UserLink id={id} naming="name" fallback={fallback ?? 'a staff member'} />
      </>
    );
  switch (happening.kind) {
    case 'account':
      return (
        <>
          <strong>{ACTIONS[happening.action] ?? happening.action}</strong>
          {by(happening.actorId, happening.actorEmail)}
          {happening.reason === null ? null : <span className="muted"> · “{happening.reason}”</span>}
        </>
      );
    case 'credits':
      return (
        <>
          <strong>
            {signed(happening.amount)} credits ({happening.entryKind.replace('_', ' ')})
          </strong>
          {by(happening.actorId)}
          {happening.reason === null ? null : <span className="muted"> · “{happening.reason}”</span>}
          <span className="muted"> · balance {happening.balanceAfter}</span>
          {happening.expiresAt === null ? null : (
            <span className="muted">
              {' '}
              · lapses <Time value={happening.expiresAt} />
            </span>
          )}
        </>
      );
    case 'logins':
      return (
        <>
          <strong>Signed in</strong> on {happening.device ?? 'an unknown device'}
          {happening.ip === null ? null : <> from {happening.ip}</>}
          <span className="muted">
            {' '}
            · last seen <Time value={happening.lastSeenAt} />
            {happening.endedAt === null ? ' · still active' : null}
          </span>
          {happening.endedAt === null ? null : (
            <span className="muted">
              {' '}
              · ended <Time value={happening.endedAt} />
            </span>
          )}
        </>
      );
    case 'games':
      return (
        <>
          <strong>Played {happening.game}</strong> <span className="muted">· {happening.status}</span>
          {happening.stoppedBy === null ? null : <> · stopped{by(happening.stoppedBy)}</>}
        </>
      );
    case 'tickets':
      return (
        <>
          <strong>
            Ticket <Link href={`/support/tickets/${happening.id}`}>{happening.subject}</Link>
          </strong>{' '}
          <span className="muted">
            · {happening.category} · {happening.status}
          </span>
          {happening.closedBy === null ? null : <> · closed{by(happening.closedBy)}</>}
        </>
      );
    case 'payments':
      return (
        <>
          <strong>
            <Link href={`/billing/payments?user_id=${user.id}`}>
              Paid {money(happening.amount, happening.currency)}
            </Link>
          </strong>{' '}
          <span className="muted">
            · {happening.paymentKind === 'credit_pack' ? `${happening.credits ?? 0} credits` : 'subscription'} ·{' '}
            {happening.status.replace('_', ' ')}
            {happening.refunded > 0 ? ` (${money(happening.refunded, happening.currency)} refunded)` : ''}
          </span>
          <BillingActions>
            <RefundPayment payment={happening.row} />
          </BillingActions>
        </>
      );
    case 'subscriptions':
      return (
        <>
          <strong>
            <Link href={`/billing/subscriptions?user_id=${user.id}`}>
              Subscribed to {happening.product ?? 'a plan'}
            </Link>
          </strong>{' '}
          <span className="muted">
            · {happening.status}
            {happening.cancelAtPeriodEnd ? ' · cancels at period end' : ''}
          </span>
          {happening.periodEnd === null ? null : (
            <span className="muted">
              {' '}
              · period ends <Time value={happening.periodEnd} />
            </span>
          )}
          <BillingActions>
            <SubscriptionActions subscription={happening.row} />
          </BillingActions>
        </>
      );
  }
}

/** Refunds and cancellations beside their entries, for those who may make them (else only noise). */
function BillingActions({ children }: { children: ReactNode }) {
  const permissions = usePermissions();
  return permissions.can('billing.write') ? <span className="timeline-actions">{children}</span> : null;
}
