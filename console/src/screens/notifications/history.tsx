import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { api } from '../../api/client';
import { useSearchState } from '../../api/search-state';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { NotificationsNav } from './notifications-nav';
import { describeSegment } from './segment';
import './notifications.css';
import { ActorLink } from '../../ui/names';

export type Broadcast = ListItem<ListBody<'/v1/admin/notifications/broadcasts'>>;

const PER_PAGE = 25;

/** What a broadcast has delivered so far, in words. */
export function deliveryOf(broadcast: Broadcast): string {
  const parts: string[] = [];
  const n = broadcast.notification;
  if (n !== null)
    parts.push(
      n.audience === 'everyone' ? `in-app to everyone, read by ${n.read_count}` : `in-app, read by ${n.read_count}`,
    );
  const e = broadcast.email;
  if (e !== null) parts.push(`email: ${e.queued} queued, ${e.sent} sent, ${e.failed} failed, ${e.skipped} skipped`);
  return parts.join('; ');
}

/** Past broadcasts, newest first, each with its segment and delivery. */
export default function BroadcastHistoryPage() {
  const [filters, setFilters] = useSearchState(['page'] as const);
  const page = Number(filters.page || '1');
  const query = { page, per_page: PER_PAGE, sort: 'created_at:desc' };
  const list = usePagedQuery(['notifications', 'broadcasts', query], () =>
    unwrap(api.GET('/v1/admin/notifications/broadcasts', { params: { query } })),
  );
  return (
    <section className="stack">
      <h1>Notifications</h1>
      <NotificationsNav />
      <h2>Broadcast history</h2>
      <PagedTable
        label="Broadcasts"
        list={list}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        rowHref={(each) => `/notifications/history/${each.id}`}
        emptyText="No broadcasts yet."
        columns={[
          {
            id: 'what',
            name: 'What',
            isRowHeader: true,
            render: (each) =>
              [each.notification?.title, each.email === null ? null : 'email'].filter(Boolean).join(' + '),
          },
          { id: 'sent', name: 'Sent', render: (each) => <Time value={each.created_at} /> },
          { id: 'by', name: 'By', render: (each) => <ActorLink id={each.created_by} naming="name" /> },
          { id: 'segment', name: 'To', render: (each) => describeSegment(each.segment) },
          {
            id: 'recipients',
            name: 'Recipients',
            render: (each) => (each.recipients === null ? 'everyone' : each.recipients.toLocaleString()),
          },
          { id: 'delivery', name: 'Delivery', render: deliveryOf },
        ]}
      />
    </section>
  );
}
