import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { DataTable, Pager, type TableColumn } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { CreateRole } from './create-role';
import type { Role } from './types';

const PER_PAGE = 25;

const COLUMNS: TableColumn<Role>[] = [
  { id: 'name', name: 'Name', sortField: 'name', isRowHeader: true, render: (role) => role.name },
  { id: 'key', name: 'Key', sortField: 'key', render: (role) => <code>{role.key}</code> },
  { id: 'members', name: 'Members', render: (role) => role.member_count },
  {
    id: 'permissions',
    name: 'Permissions',
    render: (role) => (role.permissions.includes('*') ? 'everything' : role.permissions.length),
  },
  { id: 'protected', name: 'Built in', render: (role) => (role.protected ? 'yes' : '') },
];

export default function RolesPage() {
  const [filters, setFilters] = useSearchState(['q', 'sort', 'page'] as const);
  const [, navigate] = useLocation();
  const permissions = usePermissions();
  const [sortField, sortDirection] = (filters.sort || 'name:asc').split(':') as [string, 'asc' | 'desc'];
  const page = Number(filters.page || '1');
  const query = {
    ...(filters.q === '' ? {} : { q: filters.q }),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  };
  const roles = useQuery({
    queryKey: ['roles', 'list', query],
    queryFn: () => unwrap(api.GET('/v1/admin/roles', { params: { query } })),
    placeholderData: keepPreviousData,
  });

  return (
    <section className="stack">
      <header className="page-header">
        <h1>Roles</h1>
        <CreateRole
          canWrite={permissions.can('roles.write')}
          holds={(key) => permissions.can(key)}
          onCreated={(id) => navigate(`/roles/${id}`)}
        />
      </header>
      <SearchField
        className="field field-wide"
        defaultValue={filters.q}
        onSubmit={(value) => setFilters({ q: value.trim() })}
        onClear={() => setFilters({ q: '' })}
      >
        <Label>Search key or name</Label>
        <Input placeholder="Press Enter to search" />
      </SearchField>
      {roles.error === null ? null : <ProblemNote error={roles.error} />}
      <DataTable
        label="Roles"
        columns={COLUMNS}
        items={roles.data?.data ?? []}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        onRowAction={(id) => navigate(`/roles/${id}`)}
        emptyText={roles.isPending ? 'Loading…' : 'No role matches.'}
      />
      {roles.data === undefined ? null : (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={roles.data.meta.total ?? 0}
          onPage={(next) => setFilters({ page: String(next) })}
        />
      )}
    </section>
  );
}
