import { useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { instantOf, Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { formatMoney } from './money';
import { PlayerFilter } from './players';
import { ProviderLink } from './provider-link';
import { type ListedPayment, RefundPayment } from './refund-payment';
import { UserLink } from '../../ui/names';

const FILTERS = ['q', 'user_id', 'status', 'kind', 'product_id', 'created_from', 'created_to', 'sort', 'page'] as const;
const PER_PAGE = 25;
const STATUSES = [
  { id: '', label: 'Any' },
  { id: 'succeeded', label: 'Paid' },
  { id: 'partially_refunded', label: 'Partly refunded' },
  { id: 'refunded', label: 'Refunded' },
];
const KINDS = [
  { id: '', label: 'Any' },
  { id: 'credit_pack', label: 'Credit pack' },
  { id: 'subscription', label: 'Subscription' },
];
type PaymentsQuery = NonNullable<operations['listBillingPayments']['parameters']['query']>;
const listPayments = (query: PaymentsQuery) => unwrap(api.GET('/v1/admin/billing/payments', { params: { query } }));

/** Names of the products on sale (plans and packs), for the payments' "what" column. */
export function useProductNames() {
  const tiers = useQuery({
    queryKey: ['billing', 'giftable-tiers'],
    queryFn: () => unwrap(api.GET('/v1/admin/billing/giftable-tiers')),
    staleTime: 300_000,
  });
  const names = new Map<string, string>();
  for (const tier of tiers.data?.tiers ?? []) for (const product of tier.products) names.set(product.id, product.name);
  for (const pack of tiers.data?.packs ?? []) names.set(pack.id, pack.name);
  return names;
}

/** Payments: who paid what, filtered by player, status, kind and time; refunds. */
export default function PaymentsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const products = useProductNames();
  const [showDates, setShowDates] = useState(false);
  // Dates in the address show their fields whatever the toggle says.
  const datesSet = filters.created_from !== '' || filters.created_to !== '';
  const dates = showDates || datesSet;
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const query = {
    ...presentValues({ q: filters.q, user_id: filters.user_id, status: filters.status, kind: filters.kind }),
    ...presentValues({ product_id: filters.product_id }),
    ...presentValues({
      created_from: instantOf(filters.created_from) ?? '',
      created_to: instantOf(filters.created_to) ?? '',
    }),
    sort: `${sortField}:${sortDirection}`,
    page,
    per_page: PER_PAGE,
  } as PaymentsQuery;
  const list = usePagedQuery(['billing', 'payments', query], () => listPayments(query));
  const productChoices = [{ id: '', label: 'Any' }, ...[...products].map(([id, label]) => ({ id, label }))];

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <h2>Payments</h2>
      <form className="filters" aria-label="Filter payments" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Payment id, provider id or email</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <PlayerFilter userId={filters.user_id} onChange={(user_id) => setFilters({ user_id })} />
        <ChoiceInput
          label="Status"
          value={filters.status}
          choices={STATUSES}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput label="Kind" value={filters.kind} choices={KINDS} onChange={(kind) => setFilters({ kind })} />
        <ChoiceInput
          label="Product"
          value={filters.product_id}
          choices={productChoices}
          onChange={(product_id) => setFilters({ product_id })}
        />
        {datesSet ? null : (
          <Button className="btn btn-quiet" onPress={() => setShowDates(!showDates)} aria-expanded={dates}>
            {dates ? 'Fewer filters' : 'More filters'}
          </Button>
        )}
        {dates ? (
          <div className="filters-more">
            <TextInput
              label="Paid from"
              type="datetime-local"
              value={filters.created_from}
              onChange={(value) => setFilters({ created_from: value })}
            />
            <TextInput
              label="Paid before"
              type="datetime-local"
              value={filters.created_to}
              onChange={(value) => setFilters({ created_to: value })}
            />
          </div>
        ) : null}
      </form>
      <PagedTable<ListedPayment>
        label="Payments"
        list={list}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field: sortField, direction: sortDirection }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        emptyText="No payment matches these filters."
        columns={[
          {
            id: 'when',
            name: 'Paid',
            sortField: 'created_at',
            isRowHeader: true,
            render: (payment) => <Time value={payment.created_at} />,
          },
          {
            id: 'player',
            name: 'Player',
            render: (payment) => <UserLink id={payment.user_id} label={payment.user_email} />,
          },
          {
            id: 'what',
            name: 'What',
            render: (payment) =>
              (payment.product_id === null ? undefined : products.get(payment.product_id)) ??
              (payment.kind === 'credit_pack' ? 'Credit pack' : 'Subscription'),
          },
          {
            id: 'amount',
            name: 'Amount',
            sortField: 'amount',
            render: (payment) => formatMoney(payment.amount, payment.currency),
          },
          {
            id: 'refunded',
            name: 'Refunded',
            render: (payment) =>
              payment.amount_refunded === 0 ? (
                <span className="muted">—</span>
              ) : (
                formatMoney(payment.amount_refunded, payment.currency)
              ),
          },
          { id: 'credits', name: 'Credits', render: (payment) => payment.credits ?? '' },
          {
            id: 'status',
            name: 'Status',
            render: (payment) => STATUSES.find((status) => status.id === payment.status)?.label ?? payment.status,
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (payment) => (
              <div className="button-row">
                <RefundPayment payment={payment} />
                <ProviderLink type="payment" id={payment.id} />
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}
