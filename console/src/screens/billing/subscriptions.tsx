import { type operations, unwrap } from '@platform-api/sdk';
import { Input, Label, SearchField } from 'react-aria-components';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { useProductNames } from './payments';
import { PlayerFilter } from './players';
import { ProviderLink } from './provider-link';
import { type Subscription, SubscriptionActions } from './subscription-actions';
import { Link } from 'wouter';

const FILTERS = ['user_id', 'q', 'status', 'product_id', 'cancel_at_period_end', 'sort', 'page'] as const;
const PER_PAGE = 25;
type SubscriptionsQuery = NonNullable<operations['listBillingSubscriptions']['parameters']['query']>;
const STATUSES = [
  { id: '', label: 'Any' },
  ...['active', 'trialing', 'past_due', 'canceled', 'unpaid', 'paused', 'incomplete', 'incomplete_expired'].map(
    (id) => ({ id, label: id.replace('_', ' ') }),
  ),
];
const ENDING = [
  { id: '', label: 'Any' },
  { id: 'true', label: 'Ends at period end' },
  { id: 'false', label: 'Renews' },
];

/** Subscriptions: filtered by player, status, plan and whether they end; cancel at period end and resume. */
export default function SubscriptionsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const products = useProductNames();
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const { page: _page, sort: _sort, ...text } = filters;
  const query = {
    ...presentValues(text),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  } as SubscriptionsQuery;
  const list = usePagedQuery(['billing', 'subscriptions', query], () =>
    unwrap(api.GET('/v1/admin/billing/subscriptions', { params: { query } })),
  );
  const planChoices = [{ id: '', label: 'Any' }, ...[...products].map(([id, label]) => ({ id, label }))];

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <h2>Subscriptions</h2>
      <form className="filters" aria-label="Filter subscriptions" onSubmit={(event) => event.preventDefault()}>
        {filters.user_id === '' ? (
          <SearchField
            className="field"
            defaultValue={filters.q}
            onSubmit={(value) => setFilters({ q: value.trim() })}
            onClear={() => setFilters({ q: '' })}
          >
            <Label>Subscriber email contains</Label>
            <Input placeholder="Press Enter to search" />
          </SearchField>
        ) : (
          <PlayerFilter userId={filters.user_id} onChange={(user_id) => setFilters({ user_id })} />
        )}
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUSES}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput
          label="Plan"
          value={filters.product_id}
          choices={planChoices}
          onChange={(product_id) => setFilters({ product_id })}
        />
        <ChoiceInput
          label="Renewal"
          value={filters.cancel_at_period_end}
          choices={ENDING}
          onChange={(value) => setFilters({ cancel_at_period_end: value })}
        />
      </form>
      <PagedTable<Subscription>
        label="Subscriptions"
        list={list}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        emptyText="No subscription matches these filters."
        columns={[
          {
            id: 'player',
            name: 'Subscriber',
            isRowHeader: true,
            render: (each) => <Link href={`/users/${each.user_id}`}>{each.user_email ?? 'player without email'}</Link>,
          },
          { id: 'plan', name: 'Plan', render: (each) => each.product_name ?? each.provider_price_id ?? '' },
          {
            id: 'status',
            name: 'Status',
            render: (each) => (each.cancel_at_period_end ? `${each.status}, ends at period end` : each.status),
          },
          {
            id: 'period',
            name: 'Period ends',
            sortField: 'current_period_end',
            render: (each) => <Time value={each.current_period_end} />,
          },
          {
            id: 'started',
            name: 'Started',
            sortField: 'created_at',
            render: (each) => <Time value={each.created_at} />,
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (each) => (
              <div className="button-row">
                <SubscriptionActions subscription={each} />
                <ProviderLink type="subscription" id={each.id} />
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}
