import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { GiftPack, GrantCredits } from './credit-dialogs';
import { packLabel } from './money';
import { PlayerFilter } from './players';
import { UserLink } from '../../ui/names';

type Entry = ListItem<ListBody<'/v1/admin/billing/ledger'>>;
type Lot = ListItem<ListBody<'/v1/admin/billing/lots'>>;
type LedgerQuery = NonNullable<operations['listBillingLedger']['parameters']['query']>;
type LotsQuery = NonNullable<operations['listBillingCreditLots']['parameters']['query']>;

const FILTERS = ['view', 'user_id', 'kind', 'active', 'page'] as const;
const PER_PAGE = 25;
const KINDS = [
  { id: '', label: 'Any' },
  ...['purchase', 'grant', 'gift', 'spend', 'refund_clawback', 'expiry', 'adjustment'].map((id) => ({
    id,
    label: id.replace('_', ' '),
  })),
];
const ACTIVE = [
  { id: '', label: 'Any' },
  { id: 'true', label: 'With credits left' },
  { id: 'false', label: 'Used up or lapsed' },
];

/** Credits: the ledger of every movement and the lots credits are spent from; grants and gifts. */
export default function CreditsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const view = filters.view === 'lots' ? 'lots' : 'ledger';
  const page = Number(filters.page || '1');

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <header className="page-header">
        <h2>Credits</h2>
        <div className="button-row">
          <GrantCredits userId={filters.user_id} />
          <GiftPack userId={filters.user_id} />
        </div>
      </header>
      <nav aria-label="Credits views" className="billing-tabs">
        <Link
          href={`/billing/credits?${new URLSearchParams(presentValues({ user_id: filters.user_id }))}`}
          className="area-link"
          aria-current={view === 'ledger' ? 'page' : undefined}
        >
          Ledger
        </Link>
        <Link
          href={`/billing/credits?${new URLSearchParams({ view: 'lots', ...presentValues({ user_id: filters.user_id }) })}`}
          className="area-link"
          aria-current={view === 'lots' ? 'page' : undefined}
        >
          Lots
        </Link>
      </nav>
      <form className="filters" aria-label="Filter credits" onSubmit={(event) => event.preventDefault()}>
        <PlayerFilter userId={filters.user_id} onChange={(user_id) => setFilters({ user_id })} />
        {view === 'ledger' ? (
          <ChoiceInput label="Kind" value={filters.kind} choices={KINDS} onChange={(kind) => setFilters({ kind })} />
        ) : (
          <ChoiceInput
            label="Credits left"
            value={filters.active}
            choices={ACTIVE}
            onChange={(active) => setFilters({ active })}
          />
        )}
      </form>
      {view === 'ledger' ? (
        <Ledger
          query={
            {
              ...presentValues({ user_id: filters.user_id, kind: filters.kind }),
              sort: 'created_at:desc',
              page,
              per_page: PER_PAGE,
            } as LedgerQuery
          }
          onPage={(next) => setFilters({ page: String(next) })}
        />
      ) : (
        <Lots
          query={
            {
              ...presentValues({ user_id: filters.user_id, active: filters.active }),
              page,
              per_page: PER_PAGE,
            } as LotsQuery
          }
          onPage={(next) => setFilters({ page: String(next) })}
        />
      )}
      <GiftableTiers />
    </section>
  );
}

function Ledger({ query, onPage }: { query: LedgerQuery; onPage: (page: number) => void }) {
  const list = usePagedQuery(['billing', 'ledger', query], () =>
    unwrap(api.GET('/v1/admin/billing/ledger', { params: { query } })),
  );
  return (
    <PagedTable<Entry>
      label="Credit ledger"
      list={list}
      page={query.page ?? 1}
      perPage={PER_PAGE}
      onPage={onPage}
      emptyText="No credit movement matches these filters."
      columns={[
        { id: 'when', name: 'When', isRowHeader: true, render: (entry) => <Time value={entry.created_at} /> },
        { id: 'player', name: 'Player', render: (entry) => <UserLink id={entry.user_id} label={entry.user_email} /> },
        { id: 'kind', name: 'Kind', render: (entry) => entry.kind },
        { id: 'amount', name: 'Credits', render: (entry) => (entry.amount > 0 ? `+${entry.amount}` : entry.amount) },
        { id: 'balance', name: 'Balance after', render: (entry) => entry.balance_after },
        { id: 'reason', name: 'Reason', long: true, render: (entry) => entry.reason ?? '' },
        {
          id: 'for',
          name: 'For',
          render: (entry) =>
            entry.reference_type === 'payment' ? (
              <Link href={`/billing/payments?user_id=${entry.user_id}&kind=credit_pack`}>a payment</Link>
            ) : (
              ''
            ),
        },
        { id: 'lapses', name: 'Lapses', render: (entry) => <Time value={entry.expires_at} /> },
      ]}
    />
  );
}

function Lots({ query, onPage }: { query: LotsQuery; onPage: (page: number) => void }) {
  const list = usePagedQuery(['billing', 'lots', query], () =>
    unwrap(api.GET('/v1/admin/billing/lots', { params: { query } })),
  );
  return (
    <PagedTable<Lot>
      label="Credit lots"
      list={list}
      page={query.page ?? 1}
      perPage={PER_PAGE}
      onPage={onPage}
      emptyText="No lot matches these filters."
      columns={[
        { id: 'when', name: 'Added', isRowHeader: true, render: (lot) => <Time value={lot.created_at} /> },
        { id: 'player', name: 'Player', render: (lot) => <UserLink id={lot.user_id} label={lot.user_email} /> },
        { id: 'kind', name: 'From', render: (lot) => lot.kind },
        { id: 'amount', name: 'Credits', render: (lot) => lot.amount },
        { id: 'remaining', name: 'Left', render: (lot) => lot.remaining },
        { id: 'lapses', name: 'Lapses', render: (lot) => <Time value={lot.expires_at} /> },
      ]}
    />
  );
}

/** The tier ladder and the packs on offer, as a support agent reasons about "give them something". */
function GiftableTiers() {
  const giftables = useQuery({
    queryKey: ['billing', 'giftable-tiers'],
    queryFn: () => unwrap(api.GET('/v1/admin/billing/giftable-tiers')),
    staleTime: 300_000,
  });
  if (giftables.data === undefined) return null;
  return (
    <section aria-labelledby="giftables" className="stack-tight">
      <h3 id="giftables">What can be given</h3>
      <p>
        Packs: {giftables.data.packs.length === 0 ? 'none on offer.' : giftables.data.packs.map(packLabel).join(', ')}
      </p>
      <ul>
        {giftables.data.tiers.map((tier) => (
          <li key={tier.key}>
            Tier {tier.name}:{' '}
            {tier.products.length === 0 ? 'no plan sells it' : tier.products.map((product) => product.name).join(', ')}
          </li>
        ))}
      </ul>
    </section>
  );
}
