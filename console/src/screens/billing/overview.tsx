import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { useSearchState } from '../../api/search-state';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { formatMoney } from './money';

const RANGES = [
  { id: '7', label: 'Last 7 days' },
  { id: '30', label: 'Last 30 days' },
  { id: '90', label: 'Last 90 days' },
  { id: '365', label: 'Last 365 days' },
];
const DAY = 86_400_000;

/** Billing at a glance: revenue per currency, live subscriptions and failed payments, credits. */
export default function BillingOverviewPage() {
  const [filters, setFilters] = useSearchState(['days'] as const);
  const days = RANGES.some((range) => range.id === filters.days) ? Number(filters.days) : 30;
  // The range ends at the start of the next minute, so the query key holds still while the page is open.
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  const from = new Date(to.getTime() - days * DAY);
  const query = {
    from: from.toISOString(),
    to: to.toISOString(),
    interval: days > 90 ? ('month' as const) : days > 30 ? ('week' as const) : ('day' as const),
  };
  const overview = useQuery({
    queryKey: ['billing', 'overview', days, query.to],
    queryFn: () => unwrap(api.GET('/v1/admin/billing/overview', { params: { query } })),
  });
  const openInvoices = useQuery({
    queryKey: ['billing', 'invoices', 'open-count'],
    queryFn: () =>
      unwrap(api.GET('/v1/admin/billing/invoices', { params: { query: { status: 'open', per_page: 1 } } })),
  });
  const data = overview.data;

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <header className="page-header">
        <h2>Overview</h2>
        <ChoiceInput
          label="Range"
          value={String(days)}
          choices={RANGES}
          onChange={(value) => setFilters({ days: value === '30' ? '' : value })}
        />
      </header>
      {overview.error === null ? null : <ProblemNote error={overview.error} />}
      {data === undefined ? (
        overview.isPending ? (
          <p className="loading">Loading…</p>
        ) : null
      ) : (
        <>
          <p className="muted">
            From <Time value={data.range.from} /> to <Time value={data.range.to} />.
          </p>
          <div className="billing-figures">
            <section className="card" aria-labelledby="revenue">
              <h3 id="revenue">Revenue</h3>
              {data.revenue.by_currency.length === 0 ? <p className="muted">No payments in this range.</p> : null}
              {data.revenue.by_currency.map((each) => (
                <p key={each.currency}>
                  <span className="billing-figure">{formatMoney(each.net, each.currency)}</span>
                  after refunds: {formatMoney(each.gross, each.currency)} from{' '}
                  <Link href="/billing/payments">{each.payments} payments</Link>, less{' '}
                  {formatMoney(each.refunded, each.currency)} refunded ({each.refunds} refunds)
                </p>
              ))}
            </section>
            <section className="card" aria-labelledby="subscriptions">
              <h3 id="subscriptions">Active subscriptions</h3>
              <p>
                <span className="billing-figure">{data.subscriptions.live}</span>
                <Link href="/billing/subscriptions?status=active">live now</Link>; {data.subscriptions.started} started
                and {data.subscriptions.canceled} cancellations asked in this range
              </p>
              <p>
                <Link href="/billing/subscriptions?cancel_at_period_end=true">
                  {data.subscriptions.cancel_at_period_end} end at their period’s end
                </Link>
              </p>
              {data.subscriptions.mrr.map((each) => (
                <p key={each.currency}>MRR {formatMoney(each.amount, each.currency)}</p>
              ))}
            </section>
            <section className="card" aria-labelledby="failed">
              <h3 id="failed">Failed payments</h3>
              <p>
                <span className="billing-figure">{data.subscriptions.past_due}</span>
                <Link href="/billing/subscriptions?status=past_due">subscriptions past due</Link> (a renewal charge
                failed)
              </p>
              <p>
                <Link href="/billing/invoices?status=open">
                  {openInvoices.data?.meta.total ?? '…'} invoices open (not paid)
                </Link>
              </p>
            </section>
            <section className="card" aria-labelledby="credits">
              <h3 id="credits">Credits</h3>
              <p>
                <span className="billing-figure">{data.credits.outstanding}</span>
                outstanding now
              </p>
              <p>
                In this range: {data.credits.purchased} bought, {data.credits.granted} granted, {data.credits.gifted}{' '}
                gifted, {data.credits.spent} spent, {data.credits.expired} expired, {data.credits.clawed_back} taken
                back by refunds. <Link href="/billing/credits?view=ledger">The ledger</Link>
              </p>
            </section>
          </div>
          <h3>Live subscriptions by plan</h3>
          <DataTable
            label="Live subscriptions by plan"
            items={data.subscriptions.active_by_plan.map((plan) => ({ ...plan, id: plan.product_id ?? 'unknown' }))}
            emptyText="No live subscriptions."
            rowHref={(plan) =>
              plan.product_id === null
                ? '/billing/subscriptions'
                : `/billing/subscriptions?product_id=${plan.product_id}`
            }
            columns={[
              { id: 'plan', name: 'Plan', isRowHeader: true, render: (plan) => plan.name ?? 'Unknown plan' },
              { id: 'live', name: 'Live', render: (plan) => plan.live },
              { id: 'past_due', name: 'Past due', render: (plan) => plan.past_due },
              { id: 'ending', name: 'Ending', render: (plan) => plan.cancel_at_period_end },
            ]}
          />
        </>
      )}
    </section>
  );
}
