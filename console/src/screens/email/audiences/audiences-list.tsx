import { type operations, unwrap } from '@platform-api/sdk';
import { Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { type Audience, CreateAudience, DeleteAudience, EditAudience } from './audience-dialogs';
import './audiences.css';

type AudiencesQuery = NonNullable<operations['listEmailAudiences']['parameters']['query']>;
const FILTERS = ['q', 'page'] as const;
const PER_PAGE = 25;

/** Email audiences: the lists campaigns send to, each opening its members and upload. */
export default function AudiencesPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [, navigate] = useLocation();
  const canWrite = usePermissions().can('email.write');
  const page = Number(filters.page || '1');
  const query = { ...presentValues({ q: filters.q }), page, per_page: PER_PAGE } as AudiencesQuery;
  const audiences = usePagedQuery(['email', 'audiences', query], () =>
    unwrap(api.GET('/v1/admin/email/audiences', { params: { query } })),
  );
  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <header className="page-header">
        <h2>Audiences</h2>
        <CreateAudience canWrite={canWrite} onCreated={(audience) => navigate(`/email/audiences/${audience.id}`)} />
      </header>
      <form className="filters" aria-label="Filter audiences" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Name contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
      </form>
      <PagedTable<Audience>
        label="Audiences"
        list={audiences}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        emptyText={filters.q === '' ? 'No audiences yet.' : 'No audience matches this name.'}
        rowHref={(audience) => `/email/audiences/${audience.id}`}
        columns={[
          { id: 'name', name: 'Audience', isRowHeader: true, render: (audience) => audience.name },
          { id: 'description', name: 'Description', render: (audience) => audience.description ?? '' },
          {
            id: 'members',
            name: 'Members',
            render: (audience) => audience.member_count.toLocaleString('en-GB'),
          },
          { id: 'updated', name: 'Changed', render: (audience) => <Time value={audience.updated_at} /> },
          {
            id: 'actions',
            name: 'Actions',
            render: (audience) => (
              <span className="button-row">
                <EditAudience audience={audience} canWrite={canWrite} />
                <DeleteAudience audience={audience} canWrite={canWrite} />
              </span>
            ),
          },
        ]}
      />
    </section>
  );
}
