import { unwrap } from '@platform-api/sdk';
import { useEffect, useRef, useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import type { TableColumn } from '../../ui/data-table';
import { ChoiceInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { ageOf, CATEGORIES, playerName, STATUS_LABELS, type TicketStatus, type TicketSummary } from './tickets';
import './support.css';

const PER_PAGE = 25;
/** Typing pauses this long before the list is asked again. */
const SEARCH_DELAY_MS = 300;
/** `user_id` is how another screen (the player page) links to one player's tickets. */
const FILTERS = ['q', 'status', 'category', 'user_id', 'sort', 'page'] as const;

const STATUS_CHOICES = [
  { id: '', label: 'Any status' },
  ...(Object.entries(STATUS_LABELS) as [TicketStatus, string][]).map(([id, label]) => ({ id, label })),
];
const CATEGORY_CHOICES = [{ id: '', label: 'Any category' }, ...CATEGORIES.map((id) => ({ id, label: id }))];

const COLUMNS: TableColumn<TicketSummary>[] = [
  { id: 'subject', name: 'Subject', isRowHeader: true, long: true, render: (ticket) => ticket.subject },
  { id: 'player', name: 'Player', render: (ticket) => playerName(ticket.user) },
  {
    id: 'status',
    name: 'Status',
    render: (ticket) => (
      <span className={`status ticket-status status-${ticket.status}`}>{STATUS_LABELS[ticket.status]}</span>
    ),
  },
  {
    id: 'age',
    name: 'Age',
    sortField: 'created_at',
    render: (ticket) => (
      <time className="age" dateTime={ticket.created_at} title={new Date(ticket.created_at).toLocaleString()}>
        {ageOf(ticket.created_at)}
      </time>
    ),
  },
  {
    id: 'activity',
    name: 'Last activity',
    sortField: 'updated_at',
    render: (ticket) => <Time value={ticket.updated_at} />,
  },
  { id: 'category', name: 'Category', render: (ticket) => ticket.category },
  { id: 'messages', name: 'Messages', render: (ticket) => ticket.message_count },
];

/** The support queue: most recently active first, filtered by status and category, searched as one types. */
export default function TicketQueuePage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [typed, setTyped] = useState(filters.q);
  const latestSetFilters = useRef(setFilters);
  latestSetFilters.current = setFilters;
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const search = (value: string, delay = SEARCH_DELAY_MS) => {
    setTyped(value);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => latestSetFilters.current({ q: value.trim() }), delay);
  };

  const [sortField, sortDirection] = (filters.sort || 'updated_at:desc').split(':') as [string, 'asc' | 'desc'];
  const page = Number(filters.page || '1');
  const query = {
    ...presentValues({ q: filters.q, user_id: filters.user_id }),
    ...(filters.status === '' ? {} : { status: filters.status as TicketStatus }),
    ...(filters.category === '' ? {} : { category: filters.category as (typeof CATEGORIES)[number] }),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  };
  const list = usePagedQuery(['support', 'tickets', query], () =>
    unwrap(api.GET('/v1/admin/support/tickets', { params: { query } })),
  );

  return (
    <section className="stack">
      <h1>Support</h1>
      <form className="filters" aria-label="Filter tickets" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field field-wide"
          value={typed}
          onChange={(value) => search(value)}
          onSubmit={(value) => search(value, 0)}
          onClear={() => search('', 0)}
        >
          <Label>Search player email or subject</Label>
          <Input placeholder="Results follow as you type" />
        </SearchField>
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUS_CHOICES}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput
          label="Category"
          value={filters.category}
          choices={CATEGORY_CHOICES}
          onChange={(category) => setFilters({ category })}
        />
      </form>
      {filters.user_id === '' ? null : (
        <p className="button-row">
          <span>
            Tickets of{' '}
            <strong>{list.data?.data[0] === undefined ? 'one player' : playerName(list.data.data[0].user)}</strong>
          </span>
          <Button className="btn btn-quiet" onPress={() => setFilters({ user_id: '' })}>
            Show every player
          </Button>
        </p>
      )}
      <PagedTable
        label="Support tickets"
        list={list}
        columns={COLUMNS}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        rowHref={(ticket) => `/support/tickets/${ticket.id}`}
        emptyText="No ticket matches these filters."
      />
    </section>
  );
}
