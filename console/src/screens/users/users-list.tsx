import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { SearchField, Input, Label } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { DataTable, Pager, type TableColumn } from '../../ui/data-table';
import { ChoiceInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { instantOf, Time } from '../../ui/time';
import { BulkRoles } from './bulk-roles';
import type { UserRow, UsersQuery } from './types';
import { MoreFilters } from '../../ui/more-filters';
import { SegmentExtraFields, segmentExtrasSet } from './segment-fields';

const FILTERS = [
  'q',
  'status',
  'tier',
  'role',
  'provider',
  'has_subscription',
  'created_from',
  'created_to',
  'last_seen_from',
  'last_seen_to',
  'sort',
  'page',
] as const;
const PER_PAGE = 25;

const COLUMNS: TableColumn<UserRow>[] = [
  {
    id: 'email',
    name: 'Email',
    sortField: 'email',
    isRowHeader: true,
    render: (user) => user.email ?? <span className="muted">(no email)</span>,
  },
  { id: 'name', name: 'Name', render: (user) => user.display_name ?? '' },
  {
    id: 'status',
    name: 'Status',
    render: (user) => <span className={`status status-${user.status}`}>{user.status}</span>,
  },
  { id: 'tier', name: 'Tier', render: (user) => user.tier ?? '' },
  { id: 'roles', name: 'Roles', render: (user) => user.roles.join(', ') },
  { id: 'created', name: 'Joined', sortField: 'created_at', render: (user) => <Time value={user.created_at} /> },
  { id: 'seen', name: 'Last seen', sortField: 'last_seen_at', render: (user) => <Time value={user.last_seen_at} /> },
];

const STATUS_CHOICES = [
  { id: '', label: 'Any (active only by default)' },
  { id: 'active', label: 'Active' },
  { id: 'banned', label: 'Banned' },
  { id: 'deleted', label: 'Deleted' },
];
const SUBSCRIPTION_CHOICES = [
  { id: '', label: 'Any' },
  { id: 'true', label: 'Has a subscription' },
  { id: 'false', label: 'No subscription' },
];

export default function UsersPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [, navigate] = useLocation();
  const permissions = usePermissions();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const page = Number(filters.page || '1');

  const { page: _page, sort: _sort, created_from, created_to, last_seen_from, last_seen_to, ...text } = filters;
  const extras = {
    tier: filters.tier,
    role: filters.role,
    provider: filters.provider,
    created_from,
    created_to,
    last_seen_from,
    last_seen_to,
  };
  const query = {
    ...presentValues(text),
    ...presentValues({
      created_from: instantOf(created_from) ?? '',
      created_to: instantOf(created_to) ?? '',
      last_seen_from: instantOf(last_seen_from) ?? '',
      last_seen_to: instantOf(last_seen_to) ?? '',
    }),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  };
  const users = useQuery({
    queryKey: ['users', 'list', query],
    queryFn: () => unwrap(api.GET('/v1/admin/users', { params: { query: query as UsersQuery } })),
    placeholderData: keepPreviousData,
  });

  return (
    <section className="stack">
      <h1>Users</h1>
      <form className="filters" aria-label="Filter users" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field field-wide"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Search email or name</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUS_CHOICES}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput
          label="Subscription"
          value={filters.has_subscription}
          choices={SUBSCRIPTION_CHOICES}
          onChange={(value) => setFilters({ has_subscription: value })}
        />
        <MoreFilters isSet={segmentExtrasSet(extras)}>
          <SegmentExtraFields values={extras} onChange={setFilters} />
        </MoreFilters>
      </form>
      {users.error === null ? null : <ProblemNote error={users.error} />}
      <BulkRoles
        selected={[...selected]}
        canAssign={permissions.can('roles.assign')}
        onDone={() => setSelected(new Set())}
      />
      <DataTable
        label="Users"
        columns={COLUMNS}
        items={users.data?.data ?? []}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        onRowAction={(id) => navigate(`/users/${id}`)}
        selectedKeys={selected}
        onSelectionChange={setSelected}
        emptyText={users.isPending ? 'Loading…' : 'No user matches these filters.'}
      />
      {users.data === undefined ? null : (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={users.data.meta.total ?? 0}
          onPage={(next) => setFilters({ page: String(next) })}
        />
      )}
    </section>
  );
}
