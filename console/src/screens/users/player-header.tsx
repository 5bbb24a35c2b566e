import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import type { Permissions } from '../../api/permissions';
import { ActorLink } from '../../ui/names';
import { Time } from '../../ui/time';
import type { UserProfile } from './types';

/**
 * What staff look at first: who the player is, their standing (status, ban, tier), their money
 * (credits, subscription) and their open business (tickets, last session). A figure whose
 * permission the caller lacks is left out, not shown as a refusal.
 */
export function PlayerHeader({ user, permissions }: { user: UserProfile; permissions: Permissions }) {
  const canBilling = permissions.can('billing.read');
  const canSupport = permissions.can('support.read');
  const openTickets = useQuery({
    queryKey: ['user', user.id, 'open-tickets'],
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/support/tickets', {
          params: { query: { user_id: user.id, status: 'open', per_page: 3, sort: 'created_at:desc' } },
        }),
      ),
    enabled: canSupport,
  });
  const subscription = user.subscription;
  const plan = useQuery({
    queryKey: ['user', user.id, 'subscription', subscription?.id],
    queryFn: () =>
      unwrap(api.GET('/v1/admin/billing/subscriptions', { params: { query: { user_id: user.id, per_page: 10 } } })),
    enabled: canBilling && subscription !== null,
  });
  const planName = plan.data?.data.find((row) => row.id === subscription?.id)?.product_name;
  const sessions = useQuery({
    queryKey: ['user', user.id, 'timeline', 'logins'],
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}/sessions', { params: { path: { id: user.id } } })),
  });
  const games = useQuery({
    queryKey: ['user', user.id, 'last-game'],
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/sessions', { params: { query: { user_id: user.id, limit: 1 } } })),
    enabled: permissions.can('runtime.read'),
  });
  const lastLogin = (sessions.data?.data ?? []).reduce<string | null>(
    (latest, session) => (latest === null || session.last_seen_at > latest ? session.last_seen_at : latest),
    null,
  );
  const lastGame = games.data?.data[0];

  return (
    <header className="player-header stack">
      <div className="page-header">
        <h1>{user.display_name ?? user.email ?? 'Player without a name'}</h1>
        <span className={`status status-${user.status}`}>{user.status}</span>
      </div>
      <dl className="facts player-facts">
        <dt>Email</dt>
        <dd>{user.email ?? '—'}</dd>
        <dt>Tier</dt>
        <dd>{user.tier_detail?.name ?? user.tier ?? 'none'}</dd>
        {canBilling ? (
          <>
            <dt>Credits</dt>
            <dd data-testid="credit-balance">{user.credit_balance}</dd>
            <dt>Subscription</dt>
            <dd>
              {subscription === null ? (
                'none'
              ) : (
                <Link href={`/billing/subscriptions?user_id=${user.id}`}>
                  {planName ?? 'Plan'} · {subscription.status}
                  {subscription.cancel_at_period_end ? ', cancels at period end' : ''}
                  {subscription.current_period_end === null ? null : (
                    <>
                      {' '}
                      (period ends <Time value={subscription.current_period_end} />)
                    </>
                  )}
                </Link>
              )}
            </dd>
          </>
        ) : null}
        {canSupport ? (
          <>
            <dt>Open tickets</dt>
            <dd>
              {openTickets.data === undefined ? (
                openTickets.error === null ? (
                  '…'
                ) : (
                  'could not be read'
                )
              ) : (
                <>
                  <span data-testid="open-tickets">{openTickets.data.meta.total}</span>
                  {openTickets.data.data.map((ticket) => (
                    <span key={ticket.id}>
                      {' · '}
                      <Link href={`/support/tickets/${ticket.id}`}>{ticket.subject}</Link>
                    </span>
                  ))}
                </>
              )}
            </dd>
          </>
        ) : null}
        <dt>Last session</dt>
        <dd>
          {lastLogin === null ? (
            'never signed in'
          ) : (
            <span data-testid="last-login">
              <Time value={lastLogin} />
            </span>
          )}
          {lastGame === undefined ? null : (
            <>
              {' · played '}
              {lastGame.game_title || lastGame.game_slug} <Time value={lastGame.started_at ?? lastGame.created_at} />
            </>
          )}
        </dd>
        <dt>Ban</dt>
        <dd>
          {user.status === 'banned' ? (
            <>
              Banned <Time value={user.status_changed_at} />
              {user.status_changed_by === null ? null : (
                <>
                  {' '}
                  by <ActorLink id={user.status_changed_by} naming="name" />
                </>
              )}
              {user.status_reason === null ? null : <> · “{user.status_reason}”</>}
            </>
          ) : (
            'not banned'
          )}
        </dd>
        {user.status === 'deleted' ? (
          <>
            <dt>Deleted</dt>
            <dd>
              <Time value={user.deleted_at} />
              {user.deletion === null ? null : (
                <>
                  {user.deletion.by === 'self' ? ' by the player' : ' by staff'}
                  {user.deletion.restorable_until === null ? null : (
                    <>
                      ; restorable until <Time value={user.deletion.restorable_until} />
                    </>
                  )}
                </>
              )}
            </dd>
          </>
        ) : null}
        <dt>Joined</dt>
        <dd>
          <Time value={user.created_at} />
        </dd>
      </dl>
    </header>
  );
}
