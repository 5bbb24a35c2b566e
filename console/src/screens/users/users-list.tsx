import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { SearchField, Input, Label, Button } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { DataTable, Pager, type TableColumn } from '../../ui/data-table';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { instantOf, Time } from '../../ui/time';
import { BulkRoles } from './bulk-roles';
import type { UserRow, UsersQuery } from './types';

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
  const [showMore, setShowMore] = useState(false);
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const page = Number(filters.page || '1');

  const { page: _page, sort: _sort, created_from, created_to, last_seen_from, last_seen_to, ...text } = filters;
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
        <Button className="btn btn-quiet" onPress={() => setShowMore(!showMore)} aria-expanded={showMore}>
          {showMore ? 'Fewer filters' : 'More filters'}
        </Button>
        {showMore ? (
          <div className="filters-more">
            <TextInput label="Tier key" value={filters.tier} maxLength={32} onChange={(tier) => setFilters({ tier })} />
            <TextInput label="Role key" value={filters.role} maxLength={48} onChange={(role) => setFilters({ role })} />
            <TextInput
              label="Sign-in provider"
              value={filters.provider}
              maxLength={32}
              onChange={(provider) => setFilters({ provider })}
            />
            <TextInput
              label="Joined from"
              type="datetime-local"
              value={created_from}
              onChange={(value) => setFilters({ created_from: value })}
            />
            <TextInput
              label="Joined until"
              type="datetime-local"
              value={created_to}
              onChange={(value) => setFilters({ created_to: value })}
            />
            <TextInput
              label="Last seen from"
              type="datetime-local"
              value={last_seen_from}
              onChange={(value) => setFilters({ last_seen_from: value })}
            />
            <TextInput
              label="Last seen until"
              type="datetime-local"
              value={last_seen_to}
              onChange={(value) => setFilters({ last_seen_to: value })}
            />
          </div>
        ) : null}
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
