import { type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { UserLink } from '../../ui/names';
import { ProblemNote } from '../../ui/problem-note';
import { activePrices, NEEDS_WRITE, type Product, priceLabel } from './catalog';
import { PlansNav } from './plans-nav';
import { useTiers } from './products';

type Result = operations['migratePlanSubscribers']['responses']['200']['content']['application/json'];
type Failure = Result['failures'][number];

/** The statuses a migration moves (spec, operation 21). */
const MOVED = ['trialing', 'active', 'past_due'] as const;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** How many subscriptions of the plan a migration would move, by status: three counted reads of the billing list. */
function useMovedCount(productId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['plans', 'migrate-count', productId],
    enabled: enabled && productId !== '',
    queryFn: async () => {
      const counts = await Promise.all(
        MOVED.map(async (status) => {
          const page = await unwrap(
            api.GET('/v1/admin/billing/subscriptions', {
              params: { query: { product_id: productId, status, per_page: 1 } },
            }),
          );
          return [status, page.meta.total] as const;
        }),
      );
      return { total: counts.reduce((sum, [, count]) => sum + count, 0), byStatus: Object.fromEntries(counts) };
    },
  });
}

/** Moves every live subscription of one plan to a price of another (or the same) plan, at the payment provider. */
export default function MigratePage() {
  const permissions = usePermissions();
  const canWrite = permissions.can('plans.write');
  const canCount = permissions.can('billing.read');
  const products = useQuery({
    queryKey: ['plans', 'products', { kind: 'plan' }],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/products', { params: { query: { kind: 'plan' } } })),
  });
  const plans: Product[] = products.data?.data ?? [];
  const [fromId, setFromId] = useState('');
  const [toPriceId, setToPriceId] = useState('');
  const [result, setResult] = useState<{ result: Result; from: string; to: string } | undefined>();
  const count = useMovedCount(fromId, canCount);
  const tiers = useTiers();
  const from = plans.find((plan) => plan.id === fromId);
  const targets = plans.flatMap((plan) => activePrices(plan).map((price) => ({ plan, price })));
  const target = targets.find((each) => each.price.id === toPriceId);
  const toLabel = target === undefined ? '' : `${target.plan.name} at ${priceLabel(target.price)}`;

  return (
    <section className="stack">
      <h1>Plans</h1>
      <PlansNav />
      <h2>Migrate subscribers</h2>
      <p className="hint">
        Moves every trialing, active or past-due subscription of a plan to a price on sale, at the payment provider,
        without proration: each renews at the new price and its player gets the new plan's tier.
      </p>
      {products.error !== null ? <ProblemNote error={products.error} /> : null}
      {products.data === undefined && products.error === null ? <p className="loading">Loading…</p> : null}
      {products.data === undefined ? null : (
        <form className="plans-choose" aria-label="Choose the migration" onSubmit={(event) => event.preventDefault()}>
          <ChoiceInput
            label="Move the subscribers of"
            value={fromId}
            choices={[
              { id: '', label: 'Choose a plan' },
              ...plans.map((plan) => ({
                id: plan.id,
                label: `${plan.name}${plan.isActive ? '' : ' (archived)'} — ${
                  activePrices(plan).map(priceLabel).join(', ') || 'no price on sale'
                }`,
              })),
            ]}
            onChange={(id) => {
              setFromId(id);
              setResult(undefined);
            }}
          />
          <ChoiceInput
            label="To the price"
            value={toPriceId}
            choices={[
              { id: '', label: 'Choose a price' },
              ...targets.map(({ plan, price }) => ({
                id: price.id,
                label: `${plan.name} — ${priceLabel(price)} (${price.currency.toUpperCase()})`,
              })),
            ]}
            onChange={(id) => {
              setToPriceId(id);
              setResult(undefined);
            }}
          />
        </form>
      )}
      {from === undefined ? null : (
        <section className="card" aria-label="What it will move">
          {!canCount ? (
            <p>Counting the subscriptions needs billing.read; the service reports how many moved.</p>
          ) : count.error !== null ? (
            <ProblemNote error={count.error} />
          ) : count.data === undefined ? (
            <p className="loading">Counting the subscriptions…</p>
          ) : (
            <p>
              <strong>{plural(count.data.total, 'subscription')}</strong> of {from.name} will move (
              {count.data.byStatus.active ?? 0} active, {count.data.byStatus.trialing ?? 0} trialing,{' '}
              {count.data.byStatus.past_due ?? 0} past due).{' '}
              <Link href={`/billing/subscriptions?product_id=${from.id}`}>See the subscriptions</Link>
            </p>
          )}
          {target === undefined ? null : (
            <div>
              <MigrateDialog
                canWrite={canWrite}
                from={from}
                toLabel={toLabel}
                count={canCount ? count.data?.total : undefined}
                target={target}
                tierName={
                  tiers.data?.data.find((tier) => tier.key === target.plan.tierKey)?.name ?? target.plan.tierKey ?? ''
                }
                onDone={(done) => setResult({ result: done, from: from.name, to: toLabel })}
              />
            </div>
          )}
        </section>
      )}
      {result === undefined ? null : <MigrationResult {...result} />}
    </section>
  );
}

function MigrateDialog(props: {
  canWrite: boolean;
  from: Product;
  toLabel: string;
  count: number | undefined;
  target: { plan: Product; price: Product['prices'][number] };
  tierName: string;
  onDone: (result: Result) => void;
}) {
  const [typed, setTyped] = useState('');
  const expected = props.count === undefined ? props.from.name : String(props.count);
  const nothing = props.count === 0;
  const blocked = !props.canWrite ? NEEDS_WRITE : nothing ? 'No subscription to move' : undefined;
  return (
    <FormDialog<Result>
      title={`Move ${props.count === undefined ? 'every subscription' : plural(props.count, 'subscription')} of ${props.from.name}?`}
      submitLabel="Migrate subscribers"
      destructive
      canSubmit={typed.trim() === expected}
      trigger={{
        label: 'Migrate…',
        className: 'btn btn-danger',
        isDisabled: blocked !== undefined,
        disabledReason: blocked,
      }}
      onOpen={() => setTyped('')}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/plans/subscribers/migrate', {
              body: {
                fromProductId: props.from.id,
                toProductId: props.target.plan.id,
                newProviderPriceId: props.target.price.providerPriceId,
                confirm: true,
              },
            }),
          ),
        success: (done) => `${done.migrated} of ${done.total} subscriptions moved`,
        failure: 'Could not migrate the subscribers',
        invalidates: [
          ['plans', 'migrate-count'],
          ['plans', 'products'],
          ['billing', 'subscriptions'],
        ],
        onDone: props.onDone,
      }}
    >
      <div className="consequence">
        <p>
          Every trialing, active or past-due subscription of {props.from.name} moves to {props.toLabel} at the payment
          provider, without proration: from its next renewal each player pays the new price, and they get the{' '}
          {props.tierName} tier now. The console cannot undo it; moving them back is another migration.
        </p>
      </div>
      <TextInput
        label={
          props.count === undefined
            ? `Type the plan's name, ${expected}, to confirm`
            : `Type ${expected} (the count) to confirm`
        }
        value={typed}
        onChange={setTyped}
        isRequired
        autoFocus
      />
    </FormDialog>
  );
}

function MigrationResult({ result, from, to }: { result: Result; from: string; to: string }) {
  return (
    <section className="stack" aria-label="Migration result">
      <h3>
        {from} → {to}
      </h3>
      <div className="plans-figures">
        <div className="card">
          Moved <span className="plans-figure">{result.migrated}</span>
        </div>
        <div className="card">
          Failed <span className="plans-figure">{result.failed}</span>
        </div>
        <div className="card">
          Total <span className="plans-figure">{result.total}</span>
        </div>
      </div>
      {result.failures.length === 0 ? null : (
        <>
          <p>These stay on their old price; fix the cause at the payment provider and migrate again to move them.</p>
          <DataTable<Failure & { id: string }>
            label="Subscriptions that did not move"
            items={result.failures.map((failure) => ({ ...failure, id: failure.subscriptionId }))}
            emptyText="None."
            columns={[
              {
                id: 'subscription',
                name: 'Subscription',
                isRowHeader: true,
                render: (failure) => (
                  <Link href={`/billing/subscriptions?user_id=${failure.userId}`} title={failure.subscriptionId}>
                    Subscription {failure.subscriptionId.slice(0, 8)}…
                  </Link>
                ),
              },
              { id: 'player', name: 'Player', render: (failure) => <UserLink id={failure.userId} /> },
              { id: 'reason', name: 'Reason', render: (failure) => <code>{failure.reason}</code> },
              { id: 'message', name: 'The provider said', long: true, render: (failure) => failure.message },
            ]}
          />
        </>
      )}
    </section>
  );
}
