import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { activePrices, kindLabel, type Product, priceLabel } from './catalog';
import { PlansNav } from './plans-nav';
import { CreateProduct } from './product-dialogs';

const FILTERS = ['kind', 'isActive'] as const;

/** What a product gives: its tier by name, or its credits. */
export function givesOf(product: Product, tierNames: Map<string, string>) {
  if (product.kind === 'credit_pack') return `${product.credits ?? 0} credits`;
  const key = product.tierKey ?? '';
  return `${tierNames.get(key) ?? key} tier`;
}

export function ActivePriceList({ product }: { product: Product }) {
  const active = activePrices(product);
  if (active.length === 0) return <span className="muted">none on sale</span>;
  return (
    <ul className="plans-prices">
      {active.map((price) => (
        <li key={price.id}>
          {price.currency.toUpperCase()}: {priceLabel(price)}
        </li>
      ))}
    </ul>
  );
}

export function useTiers() {
  return useQuery({
    queryKey: ['plans', 'tiers', 'all'],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/tiers')),
  });
}

/** Plans and credit packs with the price on sale in each currency; a row opens the product. */
export default function ProductsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canWrite = usePermissions().can('plans.write');
  const query = presentValues({ kind: filters.kind, isActive: filters.isActive }) as {
    kind?: 'plan' | 'credit_pack';
    isActive?: 'true' | 'false';
  };
  const products = useQuery({
    queryKey: ['plans', 'products', query],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/products', { params: { query } })),
  });
  const tiers = useTiers();
  const tierNames = new Map((tiers.data?.data ?? []).map((tier) => [tier.key, tier.name]));
  const filtered = filters.kind !== '' || filters.isActive !== '';

  return (
    <section className="stack">
      <h1>Plans</h1>
      <PlansNav />
      <header className="page-header">
        <h2>Products and prices</h2>
        <CreateProduct canWrite={canWrite} tiers={tiers.data?.data ?? []} />
      </header>
      <form className="filters" aria-label="Filter products" onSubmit={(event) => event.preventDefault()}>
        <ChoiceInput
          label="Kind"
          value={filters.kind}
          choices={[
            { id: '', label: 'Any' },
            { id: 'plan', label: 'Plans' },
            { id: 'credit_pack', label: 'Credit packs' },
          ]}
          onChange={(kind) => setFilters({ kind })}
        />
        <ChoiceInput
          label="On sale"
          value={filters.isActive}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'On sale' },
            { id: 'false', label: 'Archived' },
          ]}
          onChange={(isActive) => setFilters({ isActive })}
        />
      </form>
      {products.error !== null ? <ProblemNote error={products.error} /> : null}
      {products.data === undefined && products.error === null ? <p className="loading">Loading…</p> : null}
      {products.data === undefined ? null : (
        <DataTable<Product>
          label="Products"
          items={products.data.data}
          emptyText={filtered ? 'No product matches these filters.' : 'No products yet.'}
          rowHref={(product) => `/plans/products/${product.id}`}
          columns={[
            { id: 'name', name: 'Product', isRowHeader: true, render: (product) => product.name },
            { id: 'kind', name: 'Kind', render: (product) => kindLabel(product.kind) },
            { id: 'gives', name: 'Gives', render: (product) => givesOf(product, tierNames) },
            {
              id: 'prices',
              name: 'Price on sale per currency',
              render: (product) => <ActivePriceList product={product} />,
            },
            {
              id: 'state',
              name: 'Status',
              render: (product) =>
                product.isActive ? (
                  <span className="status status-active">on sale</span>
                ) : (
                  <span className="status">archived</span>
                ),
            },
            { id: 'order', name: 'Sort order', render: (product) => product.sortOrder },
          ]}
        />
      )}
    </section>
  );
}
