import { unwrap } from '@platform-api/sdk';
import { Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import type { TableColumn } from '../../ui/data-table';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
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
  const roles = usePagedQuery(['roles', 'list', query], () =>
    unwrap(api.GET('/v1/admin/roles', { params: { query } })),
  );

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
      <PagedTable
        label="Roles"
        columns={COLUMNS}
        list={roles}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        rowHref={(role) => `/roles/${role.id}`}
        emptyText="No role matches."
      />
    </section>
  );
}
