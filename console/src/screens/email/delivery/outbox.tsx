import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import type { Sort } from '../../../ui/data-table';
import { ChoiceInput, TextInput } from '../../../ui/fields';
import { UserLink } from '../../../ui/names';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { instantOf, Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { RetryMessage } from './retry-message';
import { MessageStatus, STATUSES } from './statuses';

type Message = ListItem<ListBody<'/v1/admin/email/outbox'>>;
type OutboxQuery = NonNullable<operations['listEmailOutbox']['parameters']['query']>;

const FILTERS = [
  'q',
  'status',
  'category',
  'campaign_id',
  'broadcast_id',
  'user_id',
  'created_from',
  'created_to',
  'sort',
  'page',
] as const;
const PER_PAGE = 25;

/** Every message the service queued: find one, see where it stands, retry a failed one. */
export default function OutboxPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canSend = usePermissions().can('email.send');
  const page = Number(filters.page || '1');
  const sort: Sort = { field: 'created_at', direction: filters.sort === 'created_at:asc' ? 'asc' : 'desc' };
  const query = {
    ...presentValues({
      q: filters.q,
      status: filters.status,
      category: filters.category,
      campaign_id: filters.campaign_id,
      broadcast_id: filters.broadcast_id,
      user_id: filters.user_id,
      sort: filters.sort,
    }),
    ...(instantOf(filters.created_from) === undefined ? {} : { created_from: instantOf(filters.created_from) }),
    ...(instantOf(filters.created_to) === undefined ? {} : { created_to: instantOf(filters.created_to) }),
    page,
    per_page: PER_PAGE,
  } as OutboxQuery;
  const messages = usePagedQuery(['email', 'outbox', query], () =>
    unwrap(api.GET('/v1/admin/email/outbox', { params: { query } })),
  );
  const filtered = FILTERS.some((key) => key !== 'page' && key !== 'sort' && filters[key] !== '');

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <h2>Outbox</h2>
      <form className="filters" aria-label="Filter messages" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Recipient contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={[{ id: '', label: 'Any' }, ...STATUSES]}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput
          label="Category"
          value={filters.category}
          choices={[
            { id: '', label: 'Any' },
            { id: 'marketing', label: 'Marketing' },
            { id: 'transactional', label: 'Transactional' },
          ]}
          onChange={(category) => setFilters({ category })}
        />
        <TextInput
          label="Queued from"
          type="datetime-local"
          value={filters.created_from}
          onChange={(created_from) => setFilters({ created_from })}
        />
        <TextInput
          label="Queued before"
          type="datetime-local"
          value={filters.created_to}
          onChange={(created_to) => setFilters({ created_to })}
        />
      </form>
      <ScopeFilters filters={filters} clear={(key) => setFilters({ [key]: '' })} />
      <PagedTable<Message>
        label="Outbound messages"
        list={messages}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={sort}
        onSortChange={(next) => setFilters({ sort: `created_at:${next.direction}` })}
        emptyText={filtered ? 'No message matches these filters.' : 'No mail has been queued yet.'}
        rowHref={(message) => `/email/outbox/${message.id}`}
        columns={[
          {
            id: 'to',
            name: 'To',
            isRowHeader: true,
            render: (message) =>
              message.user_id === null ? message.to_email : <UserLink id={message.user_id} label={message.to_email} />,
          },
          { id: 'subject', name: 'Subject', long: true, render: (message) => message.subject },
          {
            id: 'status',
            name: 'Status',
            render: (message) => <MessageStatus status={message.status} held={message.held} />,
          },
          { id: 'why', name: 'Last error', long: true, render: (message) => message.last_error ?? '' },
          { id: 'category', name: 'Category', render: (message) => message.category },
          { id: 'attempts', name: 'Attempts', render: (message) => message.attempts },
          {
            id: 'created',
            name: 'Queued',
            sortField: 'created_at',
            render: (message) => <Time value={message.created_at} />,
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (message) =>
              message.status === 'failed' ? (
                <RetryMessage id={message.id} to={message.to_email} lastError={message.last_error} canSend={canSend} />
              ) : null,
          },
        ]}
      />
    </section>
  );
}

type Filters = Record<(typeof FILTERS)[number], string>;

/** The filters a link from elsewhere sets (a campaign's mail, a broadcast's, a player's), named, each clearable. */
function ScopeFilters({
  filters,
  clear,
}: {
  filters: Filters;
  clear: (key: 'campaign_id' | 'broadcast_id' | 'user_id') => void;
}) {
  if (filters.campaign_id === '' && filters.broadcast_id === '' && filters.user_id === '') return null;
  return (
    <ul className="email-variables" aria-label="Also filtered by">
      {filters.campaign_id === '' ? null : (
        <li>
          Mail of the campaign <CampaignName id={filters.campaign_id} />{' '}
          <Button className="btn btn-quiet" onPress={() => clear('campaign_id')}>
            Show every campaign
          </Button>
        </li>
      )}
      {filters.broadcast_id === '' ? null : (
        <li>
          Mail of <Link href={`/notifications/history/${filters.broadcast_id}`}>a broadcast</Link>{' '}
          <Button className="btn btn-quiet" onPress={() => clear('broadcast_id')}>
            Show every broadcast
          </Button>
        </li>
      )}
      {filters.user_id === '' ? null : (
        <li>
          Mail to <UserLink id={filters.user_id} />{' '}
          <Button className="btn btn-quiet" onPress={() => clear('user_id')}>
            Show everyone’s
          </Button>
        </li>
      )}
    </ul>
  );
}

/** A campaign by its name, read once (its id where it cannot be read). */
export function CampaignName({ id }: { id: string }) {
  const campaign = useQuery({
    queryKey: ['email', 'campaign-name', id],
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: () => unwrap(api.GET('/v1/admin/email/campaigns/{id}', { params: { path: { id } } })),
  });
  return <strong title={id}>{campaign.data?.name ?? `${id.slice(0, 8)}…`}</strong>;
}
