import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { kindLabel, NEEDS_WRITE, type Price, type Product, priceLabel } from './catalog';
import { AddPrice, EditProduct } from './product-dialogs';
import { ActivePriceList, givesOf, useTiers } from './products';
import './plans.css';

/** One product: what it gives, its prices (add, deactivate, activate), editing and archiving it. */
export default function ProductPage({ id }: { id: string }) {
  const product = useQuery({
    queryKey: ['plans', 'product', id],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/products/{id}', { params: { path: { id } } })),
  });
  if (product.error !== null)
    return (
      <section className="stack">
        <Link href="/plans">← Products and prices</Link>
        <ProblemNote error={product.error} />
      </section>
    );
  if (product.data === undefined) return <p className="loading">Loading…</p>;
  return <ProductDetail product={product.data} />;
}

const changed = (product: Product) => [
  ['plans', 'products'],
  ['plans', 'product', product.id],
];

function ProductDetail({ product }: { product: Product }) {
  const canWrite = usePermissions().can('plans.write');
  const tiers = useTiers();
  const tierList = tiers.data?.data ?? [];
  const tierNames = new Map(tierList.map((tier) => [tier.key, tier.name]));
  return (
    <section className="stack">
      <Link href="/plans">← Products and prices</Link>
      <header className="page-header">
        <h1>{product.name}</h1>
        <span className="status">{kindLabel(product.kind)}</span>
        {product.isActive ? (
          <span className="status status-active">on sale</span>
        ) : (
          <span className="status">archived</span>
        )}
      </header>
      <div className="button-row">
        <EditProduct key={product.updatedAt} product={product} canWrite={canWrite} tiers={tierList} />
        <ArchiveProduct product={product} canWrite={canWrite} />
      </div>
      <dl className="facts">
        <dt>Gives</dt>
        <dd>{givesOf(product, tierNames)}</dd>
        <dt>Description</dt>
        <dd>{product.description ?? <span className="muted">none</span>}</dd>
        <dt>On sale per currency</dt>
        <dd>
          <ActivePriceList product={product} />
        </dd>
        <dt>Sort order</dt>
        <dd>{product.sortOrder}</dd>
        <dt>Changed</dt>
        <dd>
          <Time value={product.updatedAt} />
        </dd>
      </dl>
      <header className="page-header">
        <h2>Prices</h2>
        <AddPrice product={product} canWrite={canWrite} />
      </header>
      <p className="hint">
        A price's amount, currency and interval never change: add a new price and deactivate the old one. One price per
        currency is on sale at a time.
      </p>
      <DataTable<Price>
        label="Prices"
        items={product.prices}
        emptyText="No prices yet: players cannot buy it until it has one."
        columns={[
          { id: 'amount', name: 'Price', isRowHeader: true, render: priceLabel },
          { id: 'currency', name: 'Currency', render: (price) => price.currency.toUpperCase() },
          {
            id: 'provider',
            name: 'Provider price id',
            render: (price) => <code className="plans-code">{price.providerPriceId}</code>,
          },
          {
            id: 'state',
            name: 'Status',
            render: (price) =>
              price.isActive ? (
                <span className="status status-active">active</span>
              ) : (
                <span className="status">inactive</span>
              ),
          },
          { id: 'created', name: 'Added', render: (price) => <Time value={price.createdAt} /> },
          {
            id: 'actions',
            name: 'Actions',
            render: (price) => <PriceSwitch product={product} price={price} canWrite={canWrite} />,
          },
        ]}
      />
    </section>
  );
}

function ArchiveProduct({ product, canWrite }: { product: Product; canWrite: boolean }) {
  const write = (isActive: boolean) => ({
    call: () =>
      unwrap(
        api.PATCH('/v1/admin/plans/products/{id}', {
          params: { path: { id: product.id } },
          body: { isActive },
        }),
      ),
    success: (saved: Product) => `${saved.name} ${saved.isActive ? 'is on sale again' : 'archived'}`,
    failure: isActive ? 'Could not put the product on sale' : 'Could not archive the product',
    invalidates: changed(product),
  });
  const disabled = { isDisabled: !canWrite, disabledReason: canWrite ? undefined : NEEDS_WRITE };
  return product.isActive ? (
    <Confirm<Product>
      trigger="Archive…"
      destructive
      {...disabled}
      title={`Archive ${product.name}?`}
      consequence={
        `It leaves the store and checkout: no one can buy it any more. ` +
        (product.kind === 'plan'
          ? 'Existing subscribers keep it and renew as before (move them with Migrate subscribers). '
          : 'Credits already bought stay. ') +
        'Nothing is deleted: you can put it on sale again.'
      }
      confirmLabel="Archive product"
      write={write(false)}
    />
  ) : (
    <Confirm<Product>
      trigger="Put on sale…"
      {...disabled}
      title={`Put ${product.name} on sale again?`}
      consequence="It shows in the store and checkout again with its active prices."
      confirmLabel="Put on sale"
      write={write(true)}
    />
  );
}

function PriceSwitch({ product, price, canWrite }: { product: Product; price: Price; canWrite: boolean }) {
  const label = `${priceLabel(price)} (${price.currency.toUpperCase()})`;
  const write = (isActive: boolean) => ({
    call: () =>
      unwrap(api.PATCH('/v1/admin/plans/prices/{id}', { params: { path: { id: price.id } }, body: { isActive } })),
    success: (saved: Price) => `Price ${priceLabel(saved)} ${saved.isActive ? 'activated' : 'deactivated'}`,
    failure: isActive ? 'Could not activate the price' : 'Could not deactivate the price',
    invalidates: changed(product),
  });
  const disabled = { isDisabled: !canWrite, disabledReason: canWrite ? undefined : NEEDS_WRITE };
  // Keyed apart: the two are different dialogs, and neither may inherit the other's state.
  return price.isActive ? (
    <Confirm<Price>
      key="deactivate"
      trigger="Deactivate…"
      destructive
      {...disabled}
      title={`Deactivate ${label}?`}
      consequence={
        `New checkouts can no longer use it${product.kind === 'plan' ? '; subscriptions on it keep renewing at it until migrated' : ''}. ` +
        'It stays in the list and can be activated again.'
      }
      confirmLabel="Deactivate price"
      write={write(false)}
    />
  ) : (
    <Confirm<Price>
      key="activate"
      trigger="Activate…"
      {...disabled}
      title={`Activate ${label}?`}
      consequence={`It goes on sale in ${price.currency.toUpperCase()}; the service refuses if another price in that currency is active.`}
      confirmLabel="Activate price"
      write={write(true)}
    />
  );
}
