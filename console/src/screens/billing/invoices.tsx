import { useState } from 'react';
import { Button } from 'react-aria-components';
import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { instantOf, Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { formatMoney } from './money';
import { PlayerFilter } from './players';
import { ProviderLink } from './provider-link';
import { UserLink } from '../../ui/names';

type Invoice = ListItem<ListBody<'/v1/admin/billing/invoices'>>;
type InvoicesQuery = NonNullable<operations['listBillingInvoices']['parameters']['query']>;
const FILTERS = ['user_id', 'status', 'created_from', 'created_to', 'sort', 'page'] as const;
const PER_PAGE = 25;
const STATUSES = [
  { id: '', label: 'Any' },
  { id: 'open', label: 'Open (not paid yet)' },
  { id: 'paid', label: 'Paid' },
  { id: 'uncollectible', label: 'Uncollectible' },
  { id: 'void', label: 'Void' },
  { id: 'draft', label: 'Draft' },
];

/** Subscription invoices as the provider reported them, filtered by player, status and time. */
export default function InvoicesPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const [showDates, setShowDates] = useState(false);
  // Dates in the address show their fields whatever the toggle says.
  const datesSet = filters.created_from !== '' || filters.created_to !== '';
  const dates = showDates || datesSet;
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const query = {
    ...presentValues({ user_id: filters.user_id, status: filters.status }),
    ...presentValues({
      created_from: instantOf(filters.created_from) ?? '',
      created_to: instantOf(filters.created_to) ?? '',
    }),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  } as InvoicesQuery;
  const list = usePagedQuery(['billing', 'invoices', query], () =>
    unwrap(api.GET('/v1/admin/billing/invoices', { params: { query } })),
  );

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <h2>Invoices</h2>
      <form className="filters" aria-label="Filter invoices" onSubmit={(event) => event.preventDefault()}>
        <PlayerFilter userId={filters.user_id} onChange={(user_id) => setFilters({ user_id })} />
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUSES}
          onChange={(status) => setFilters({ status })}
        />
        {datesSet ? null : (
          <Button className="btn btn-quiet" onPress={() => setShowDates(!showDates)} aria-expanded={dates}>
            {dates ? 'Fewer filters' : 'More filters'}
          </Button>
        )}
        {dates ? (
          <div className="filters-more">
            <TextInput
              label="Created from"
              type="datetime-local"
              value={filters.created_from}
              onChange={(value) => setFilters({ created_from: value })}
            />
            <TextInput
              label="Created before"
              type="datetime-local"
              value={filters.created_to}
              onChange={(value) => setFilters({ created_to: value })}
            />
          </div>
        ) : null}
      </form>
      <PagedTable<Invoice>
        label="Invoices"
        list={list}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        emptyText="No invoice matches these filters."
        columns={[
          {
            id: 'when',
            name: 'Created',
            sortField: 'created_at',
            isRowHeader: true,
            render: (each) => <Time value={each.created_at} />,
          },
          { id: 'player', name: 'Player', render: (each) => <UserLink id={each.user_id} label={each.user_email} /> },
          { id: 'status', name: 'Status', render: (each) => each.status },
          {
            id: 'due',
            name: 'Due',
            sortField: 'amount_due',
            render: (each) => formatMoney(each.amount_due, each.currency),
          },
          { id: 'paid', name: 'Paid', render: (each) => formatMoney(each.amount_paid, each.currency) },
          {
            id: 'period',
            name: 'Period',
            render: (each) => (
              <>
                <Time value={each.period_start} /> – <Time value={each.period_end} />
              </>
            ),
          },
          {
            id: 'links',
            name: 'Links',
            render: (each) => (
              <div className="button-row">
                {each.hosted_url === null ? null : (
                  <a href={each.hosted_url} target="_blank" rel="noopener noreferrer">
                    Invoice page
                  </a>
                )}
                <ProviderLink type="invoice" id={each.id} />
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}
