import { type operations, unwrap } from '@platform-api/sdk';
import { Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import { ChoiceInput } from '../../../ui/fields';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { Time } from '../../../ui/time';
import { type Campaign, CreateCampaign } from './campaign-form';
import { STATUS_CHOICES, StatusBadge, sentOf } from './campaign-status';
import { EmailNav } from '../email-nav';
import '../audiences/audiences.css';

type CampaignsQuery = NonNullable<operations['listEmailCampaigns']['parameters']['query']>;
const FILTERS = ['q', 'status', 'page'] as const;
const PER_PAGE = 25;

/** Email campaigns: what was sent or will be, to whom, and how far each has got. */
export default function CampaignsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [, navigate] = useLocation();
  const canWrite = usePermissions().can('email.write');
  const page = Number(filters.page || '1');
  const query = {
    ...presentValues({ q: filters.q, status: filters.status }),
    page,
    per_page: PER_PAGE,
  } as CampaignsQuery;
  const campaigns = usePagedQuery(['email', 'campaigns', query], () =>
    unwrap(api.GET('/v1/admin/email/campaigns', { params: { query } })),
  );
  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <header className="page-header">
        <h2>Campaigns</h2>
        <CreateCampaign canWrite={canWrite} onCreated={(id) => navigate(`/email/campaigns/${id}`)} />
      </header>
      <form className="filters" aria-label="Filter campaigns" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Name contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={[{ id: '', label: 'Any' }, ...STATUS_CHOICES]}
          onChange={(status) => setFilters({ status })}
        />
      </form>
      <PagedTable<Campaign>
        label="Campaigns"
        list={campaigns}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        emptyText={
          filters.q === '' && filters.status === '' ? 'No campaigns yet.' : 'No campaign matches these filters.'
        }
        rowHref={(campaign) => `/email/campaigns/${campaign.id}`}
        columns={[
          { id: 'name', name: 'Campaign', isRowHeader: true, render: (campaign) => campaign.name },
          { id: 'status', name: 'Status', render: (campaign) => <StatusBadge status={campaign.status} /> },
          { id: 'template', name: 'Template', render: (campaign) => campaign.template_key },
          { id: 'audience', name: 'Audience', render: (campaign) => campaign.audience_name ?? 'none' },
          { id: 'sent', name: 'Sent', render: sentOf },
          {
            id: 'when',
            name: 'Launched or scheduled',
            render: (campaign) => <Time value={campaign.launched_at ?? campaign.scheduled_at} />,
          },
        ]}
      />
    </section>
  );
}
