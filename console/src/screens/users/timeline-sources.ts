import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Permissions } from '../../api/permissions';
import type { ListedPayment } from '../billing/refund-payment';
import type { Subscription } from '../billing/subscription-actions';
import type { UserProfile } from './types';

/** What a timeline entry is about: the kind filter's choices. */
export const KINDS = [
  { id: 'account', label: 'Account' },
  { id: 'credits', label: 'Credits' },
  { id: 'payments', label: 'Payments' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'tickets', label: 'Support tickets' },
  { id: 'logins', label: 'Sign-ins' },
  { id: 'games', label: 'Game sessions' },
] as const;
export type Kind = (typeof KINDS)[number]['id'];

/** One thing that happened to the player, from one of the admin lists filtered by them. */
export type Happening =
  | {
      kind: 'account';
      at: string;
      id: string;
      action: string;
      actorId: string | null;
      actorEmail: string | null;
      reason: string | null;
    }
  | {
      kind: 'credits';
      at: string;
      id: number;
      amount: number;
      entryKind: string;
      balanceAfter: number;
      reason: string | null;
      actorId: string | null;
      expiresAt: string | null;
    }
  | {
      kind: 'logins';
      at: string;
      id: string;
      device: string | null;
      ip: string | null;
      lastSeenAt: string;
      endedAt: string | null;
    }
  | {
      kind: 'games';
      at: string;
      id: string;
      game: string;
      status: string;
      endedAt: string | null;
      stoppedBy: string | null;
    }
  | {
      kind: 'tickets';
      at: string;
      id: string;
      subject: string;
      status: string;
      category: string;
      closedBy: string | null;
    }
  | {
      kind: 'payments';
      at: string;
      id: string;
      amount: number;
      refunded: number;
      currency: string;
      status: string;
      paymentKind: string;
      credits: number | null;
      /** The payments list's row, for refunding it from the timeline. */
      row: ListedPayment;
    }
  | {
      kind: 'subscriptions';
      at: string;
      id: string;
      product: string | null;
      status: string;
      cancelAtPeriodEnd: boolean;
      periodEnd: string | null;
      /** The subscriptions list's row, for cancelling or resuming it from the timeline. */
      row: Subscription;
    };

/** One source's state: its entries, whether older ones remain unread, and its failure if any. */
export interface Source {
  kind: Kind;
  happenings: Happening[];
  /** The source holds older entries than it returned: the timeline stops at its oldest. */
  hasMore: boolean;
  /** Read at most this many (the account list without audit.read: the profile's latest 20). */
  capped?: string;
  isPending: boolean;
  error: unknown;
}

const query = <T>(enabled: boolean, key: unknown[], fetch: () => Promise<T>) => ({
  queryKey: key,
  queryFn: fetch,
  enabled,
  placeholderData: keepPreviousData,
});

/**
 * The player's history from each admin list that filters by user, `limit` newest of each. A
 * source the caller lacks the permission for is not asked at all (no refusal to show). Without
 * audit.read, the account entries are the profile's own latest 20 (users.read).
 */
export function useTimelineSources(user: UserProfile, permissions: Permissions, limit: number): Source[] {
  const id = user.id;
  const page = { page: 1, per_page: limit };
  const canAudit = permissions.can('audit.read');
  const canBilling = permissions.can('billing.read');
  const canSupport = permissions.can('support.read');
  const canRuntime = permissions.can('runtime.read');
  const canUsers = permissions.can('users.read');

  const audit = useQuery(
    query(canAudit, ['user', id, 'timeline', 'audit', limit], () =>
      unwrap(
        api.GET('/v1/admin/audit', {
          params: { query: { ...page, target_type: 'user', target_id: id, sort: 'created_at:desc' } },
        }),
      ),
    ),
  );
  const ledger = useQuery(
    query(canBilling, ['user', id, 'timeline', 'ledger', limit], () =>
      unwrap(
        api.GET('/v1/admin/billing/ledger', { params: { query: { ...page, user_id: id, sort: 'created_at:desc' } } }),
      ),
    ),
  );
  const payments = useQuery(
    query(canBilling, ['user', id, 'timeline', 'payments', limit], () =>
      unwrap(
        api.GET('/v1/admin/billing/payments', { params: { query: { ...page, user_id: id, sort: 'created_at:desc' } } }),
      ),
    ),
  );
  const subscriptions = useQuery(
    query(canBilling, ['user', id, 'timeline', 'subscriptions', limit], () =>
      unwrap(
        api.GET('/v1/admin/billing/subscriptions', {
          params: { query: { ...page, user_id: id, sort: 'created_at:desc' } },
        }),
      ),
    ),
  );
  const tickets = useQuery(
    query(canSupport, ['user', id, 'timeline', 'tickets', limit], () =>
      unwrap(
        api.GET('/v1/admin/support/tickets', { params: { query: { ...page, user_id: id, sort: 'created_at:desc' } } }),
      ),
    ),
  );
  const logins = useQuery(
    query(canUsers, ['user', id, 'timeline', 'logins'], () =>
      unwrap(api.GET('/v1/admin/users/{id}/sessions', { params: { path: { id } } })),
    ),
  );
  const games = useQuery(
    query(canRuntime, ['user', id, 'timeline', 'games', limit], () =>
      unwrap(
        api.GET('/v1/admin/runtime/sessions', { params: { query: { user_id: id, limit: Math.min(limit, 100) } } }),
      ),
    ),
  );

  const more = (meta: { total?: number | null } | undefined, loaded: number) => (meta?.total ?? 0) > loaded;
  const sources: Source[] = [];
  // A grant or gift of credits is also a ledger entry: shown once, there, when the ledger is read.
  const elsewhere = (action: string) => canBilling && action.startsWith('billing.credits.');
  if (canAudit) {
    const rows = audit.data?.data ?? [];
    sources.push({
      kind: 'account',
      happenings: rows
        .filter((row) => !elsewhere(row.action))
        .map((row) => ({
          kind: 'account',
          at: row.created_at,
          id: row.id,
          action: row.action,
          actorId: row.actor_id,
          actorEmail: row.actor_email,
          reason: row.reason,
        })),
      hasMore: more(audit.data?.meta, rows.length),
      isPending: audit.isPending,
      error: audit.error,
    });
  } else if (canUsers) {
    sources.push({
      kind: 'account',
      happenings: user.recent_audit
        .filter((row) => !elsewhere(row.action))
        .map((row) => ({
          kind: 'account',
          at: row.created_at,
          id: row.id,
          action: row.action,
          actorId: row.actor_id,
          actorEmail: null,
          reason: row.reason,
        })),
      hasMore: false,
      capped:
        user.recent_audit.length >= 20 ? 'Account: the latest 20 entries (the full log needs audit.read).' : undefined,
      isPending: false,
      error: null,
    });
  }
  if (canBilling) {
    const entries = ledger.data?.data ?? [];
    sources.push({
      kind: 'credits',
      happenings: entries.map((entry) => ({
        kind: 'credits',
        at: entry.created_at,
        id: entry.id,
        amount: entry.amount,
        entryKind: entry.kind,
        balanceAfter: entry.balance_after,
        reason: entry.reason,
        actorId: entry.actor_id,
        expiresAt: entry.expires_at,
      })),
      hasMore: more(ledger.data?.meta, entries.length),
      isPending: ledger.isPending,
      error: ledger.error,
    });
    const paid = payments.data?.data ?? [];
    sources.push({
      kind: 'payments',
      happenings: paid.map((payment) => ({
        kind: 'payments',
        at: payment.created_at,
        id: payment.id,
        amount: payment.amount,
        refunded: payment.amount_refunded,
        currency: payment.currency,
        status: payment.status,
        paymentKind: payment.kind,
        credits: payment.credits,
        row: payment,
      })),
      hasMore: more(payments.data?.meta, paid.length),
      isPending: payments.isPending,
      error: payments.error,
    });
    const subscribed = subscriptions.data?.data ?? [];
    sources.push({
      kind: 'subscriptions',
      happenings: subscribed.map((subscription) => ({
        kind: 'subscriptions',
        at: subscription.created_at,
        id: subscription.id,
        product: subscription.product_name,
        status: subscription.status,
        cancelAtPeriodEnd: subscription.cancel_at_period_end,
        periodEnd: subscription.current_period_end,
        row: subscription,
      })),
      hasMore: more(subscriptions.data?.meta, subscribed.length),
      isPending: subscriptions.isPending,
      error: subscriptions.error,
    });
  }
  if (canSupport) {
    const opened = tickets.data?.data ?? [];
    sources.push({
      kind: 'tickets',
      happenings: opened.map((ticket) => ({
        kind: 'tickets',
        at: ticket.created_at,
        id: ticket.id,
        subject: ticket.subject,
        status: ticket.status,
        category: ticket.category,
        closedBy: ticket.closed_by,
      })),
      hasMore: more(tickets.data?.meta, opened.length),
      isPending: tickets.isPending,
      error: tickets.error,
    });
  }
  if (canUsers) {
    // At most the 100 latest, in one answer (the endpoint does not page).
    sources.push({
      kind: 'logins',
      happenings: (logins.data?.data ?? []).map((session) => ({
        kind: 'logins',
        at: session.first_seen_at,
        id: session.session_id,
        device: session.user_agent,
        ip: session.ip,
        lastSeenAt: session.last_seen_at,
        endedAt: session.revoked_at,
      })),
      hasMore: false,
      isPending: logins.isPending,
      error: logins.error,
    });
  }
  if (canRuntime) {
    const played = games.data?.data ?? [];
    sources.push({
      kind: 'games',
      happenings: played.map((session) => ({
        kind: 'games',
        at: session.started_at ?? session.created_at,
        id: session.id,
        game: session.game_title || session.game_slug,
        status: session.status,
        endedAt: session.ended_at,
        stoppedBy: session.stopped_by,
      })),
      hasMore: Boolean(games.data?.meta.next_cursor),
      isPending: games.isPending,
      error: games.error,
    });
  }
  return sources;
}

/**
 * The sources' entries merged, newest first, down to where every source is complete: below the
 * oldest entry of a source with more to read, that source's older entries would be missing, so
 * the merged list stops there (and "Show older" reads further).
 */
export function mergeSources(sources: Source[], kind: Kind | ''): { happenings: Happening[]; cut: boolean } {
  const shown = sources.filter((source) => kind === '' || source.kind === kind);
  const bounds = shown
    .filter((source) => source.hasMore && source.happenings.length > 0)
    .map((source) => Math.min(...source.happenings.map((happening) => Date.parse(happening.at))));
  const floor = bounds.length === 0 ? Number.NEGATIVE_INFINITY : Math.max(...bounds);
  const happenings = shown
    .flatMap((source) => source.happenings)
    .filter((happening) => Date.parse(happening.at) >= floor)
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  return { happenings, cut: bounds.length > 0 };
}
