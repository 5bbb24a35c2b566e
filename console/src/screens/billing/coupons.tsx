import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Input, Label, SearchField, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { instantOf, Time } from '../../ui/time';
import { BillingNav } from './billing-nav';
import { formatMoney, minorOf } from './money';

type Coupon = ListItem<ListBody<'/v1/admin/billing/coupons'>>;
type PromotionCode = ListItem<ListBody<'/v1/admin/billing/promotion-codes'>>;
type CouponsQuery = NonNullable<operations['listBillingCoupons']['parameters']['query']>;
type CodesQuery = NonNullable<operations['listBillingPromotionCodes']['parameters']['query']>;

const FILTERS = ['q', 'status', 'page', 'code_q', 'coupon_id', 'active', 'code_page'] as const;
const PER_PAGE = 25;
const CREATE_COUPON = 'POST /v1/admin/billing/coupons';
const CREATE_CODE = 'POST /v1/admin/billing/promotion-codes';
const NEEDS_WRITE = 'Needs billing.write';

const discountOf = (coupon: Coupon) =>
  coupon.percent_off !== null
    ? `${coupon.percent_off}% off`
    : coupon.amount_off !== null && coupon.currency !== null
      ? `${formatMoney(coupon.amount_off, coupon.currency)} off`
      : '';
const durationOf = (coupon: Coupon) =>
  coupon.duration === 'repeating' ? `for ${coupon.duration_in_months} months` : coupon.duration;

/** Coupons and their promotion codes: list, create, delete a coupon, turn a code on or off. */
export default function CouponsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const permissions = usePermissions();
  const canWrite = permissions.can('billing.write');
  const page = Number(filters.page || '1');
  const codePage = Number(filters.code_page || '1');
  const couponsQuery = {
    ...presentValues({ q: filters.q, status: filters.status }),
    page,
    per_page: PER_PAGE,
  } as CouponsQuery;
  const coupons = usePagedQuery(['billing', 'coupons', couponsQuery], () =>
    unwrap(api.GET('/v1/admin/billing/coupons', { params: { query: couponsQuery } })),
  );
  const codesQuery = {
    ...presentValues({ q: filters.code_q, coupon_id: filters.coupon_id, active: filters.active }),
    page: codePage,
    per_page: PER_PAGE,
  } as CodesQuery;
  const codes = usePagedQuery(['billing', 'promotion-codes', codesQuery], () =>
    unwrap(api.GET('/v1/admin/billing/promotion-codes', { params: { query: codesQuery } })),
  );
  const activeCoupons = useQuery({
    queryKey: ['billing', 'coupons', 'active-choices'],
    queryFn: () =>
      unwrap(api.GET('/v1/admin/billing/coupons', { params: { query: { status: 'active', per_page: 100 } } })),
  });
  const couponNames = new Map((activeCoupons.data?.data ?? []).map((coupon) => [coupon.id, coupon.name]));
  for (const coupon of coupons.data?.data ?? []) couponNames.set(coupon.id, coupon.name);

  return (
    <section className="stack">
      <h1>Billing</h1>
      <BillingNav />
      <header className="page-header">
        <h2>Coupons</h2>
        <CreateCoupon canWrite={canWrite} />
      </header>
      <form className="filters" aria-label="Filter coupons" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Coupon name contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Coupon status"
          value={filters.status}
          choices={[
            { id: '', label: 'Any' },
            { id: 'active', label: 'Active' },
            { id: 'deleted', label: 'Deleted' },
          ]}
          onChange={(status) => setFilters({ status })}
        />
      </form>
      <PagedTable<Coupon>
        label="Coupons"
        list={coupons}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        emptyText={filters.q === '' && filters.status === '' ? 'No coupons yet.' : 'No coupon matches these filters.'}
        rowHref={(coupon) => `/billing/coupons?coupon_id=${coupon.id}`}
        columns={[
          { id: 'name', name: 'Coupon', isRowHeader: true, render: (coupon) => coupon.name },
          { id: 'discount', name: 'Discount', render: discountOf },
          { id: 'duration', name: 'Applies', render: durationOf },
          { id: 'limit', name: 'Redemptions', render: (coupon) => coupon.max_redemptions ?? 'no limit' },
          { id: 'redeem_by', name: 'Redeem by', render: (coupon) => <Time value={coupon.redeem_by} /> },
          {
            id: 'state',
            name: 'Status',
            render: (coupon) => (coupon.deleted_at === null ? 'active' : 'deleted'),
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (coupon) =>
              coupon.deleted_at === null ? <DeleteCoupon coupon={coupon} canWrite={canWrite} /> : null,
          },
        ]}
      />

      <header className="page-header">
        <h2>Promotion codes</h2>
        <CreatePromotionCode
          canWrite={canWrite}
          coupons={activeCoupons.data?.data ?? []}
          couponId={filters.coupon_id}
        />
      </header>
      <form className="filters" aria-label="Filter promotion codes" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.code_q}
          onSubmit={(value) => setFilters({ code_q: value.trim() })}
          onClear={() => setFilters({ code_q: '' })}
        >
          <Label>Code contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Of coupon"
          value={filters.coupon_id}
          choices={[{ id: '', label: 'Any' }, ...[...couponNames].map(([id, label]) => ({ id, label }))]}
          onChange={(coupon_id) => setFilters({ coupon_id })}
        />
        <ChoiceInput
          label="Code status"
          value={filters.active}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'Active' },
            { id: 'false', label: 'Inactive' },
          ]}
          onChange={(active) => setFilters({ active })}
        />
      </form>
      <PagedTable<PromotionCode>
        label="Promotion codes"
        list={codes}
        page={codePage}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ code_page: String(next) })}
        emptyText={
          filters.code_q === '' && filters.coupon_id === '' && filters.active === ''
            ? 'No promotion codes yet.'
            : 'No promotion code matches these filters.'
        }
        columns={[
          { id: 'code', name: 'Code', isRowHeader: true, render: (code) => <code>{code.code}</code> },
          { id: 'coupon', name: 'Coupon', render: (code) => couponNames.get(code.coupon_id) ?? 'a deleted coupon' },
          { id: 'limit', name: 'Redemptions', render: (code) => code.max_redemptions ?? 'no limit' },
          { id: 'expires', name: 'Expires', render: (code) => <Time value={code.expires_at} /> },
          { id: 'first', name: 'First purchase only', render: (code) => (code.first_time_only ? 'yes' : 'no') },
          { id: 'state', name: 'Status', render: (code) => (code.active ? 'active' : 'inactive') },
          {
            id: 'actions',
            name: 'Actions',
            render: (code) => <CodeSwitch code={code} canWrite={canWrite} />,
          },
        ]}
      />
    </section>
  );
}

function DeleteCoupon({ coupon, canWrite }: { coupon: Coupon; canWrite: boolean }) {
  const remove = useWrite({
    call: () => unwrap(api.DELETE('/v1/admin/billing/coupons/{id}', { params: { path: { id: coupon.id } } })),
    success: `Coupon ${coupon.name} deleted`,
    failure: 'Could not delete the coupon',
    invalidates: [
      ['billing', 'coupons'],
      ['billing', 'promotion-codes'],
    ],
  });
  return (
    <Confirm
      trigger="Delete…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Delete the coupon ${coupon.name}?`}
      consequence={
        `No one can redeem it any more: it is deleted at the payment provider and every promotion code of it ` +
        `stops working. Checkouts it already discounted keep their discount. This cannot be undone.`
      }
      confirmLabel="Delete coupon"
      onConfirm={() => remove.mutateAsync()}
    />
  );
}

function CodeSwitch({ code, canWrite }: { code: PromotionCode; canWrite: boolean }) {
  const change = useWrite({
    call: (active: boolean) =>
      unwrap(
        api.PATCH('/v1/admin/billing/promotion-codes/{id}', {
          params: { path: { id: code.id } },
          body: { active },
        }),
      ),
    success: (result) => `Code ${result.code} ${result.active ? 'activated' : 'deactivated'}`,
    failure: 'Could not change the code',
    invalidates: [['billing', 'promotion-codes']],
  });
  return code.active ? (
    <Confirm
      trigger="Deactivate…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Deactivate ${code.code}?`}
      consequence="Players can no longer enter it at checkout. Discounts already given stay. You can activate it again."
      confirmLabel="Deactivate"
      onConfirm={() => change.mutateAsync(false)}
    />
  ) : (
    <Confirm
      trigger="Activate…"
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Activate ${code.code}?`}
      consequence="Players can enter it at checkout again, within its limits and expiry."
      confirmLabel="Activate"
      onConfirm={() => change.mutateAsync(true)}
    />
  );
}

const DURATIONS = [
  { id: 'once', label: 'Once' },
  { id: 'repeating', label: 'For some months' },
  { id: 'forever', label: 'Forever' },
];

function CreateCoupon({ canWrite }: { canWrite: boolean }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState('percent');
  const [percent, setPercent] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('EUR');
  const [duration, setDuration] = useState('once');
  const [months, setMonths] = useState('');
  const [maxRedemptions, setMaxRedemptions] = useState('');
  const [redeemBy, setRedeemBy] = useState('');
  const rule = (field: string) => ruleOf(CREATE_COUPON, field);

  return (
    <FormDialog<Coupon>
      title="New coupon"
      submitLabel="Create coupon"
      wide
      trigger={{
        label: 'New coupon…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName('');
        setPercent('');
        setAmount('');
        setMonths('');
        setMaxRedemptions('');
        setRedeemBy('');
      }}
      write={{
        call: () => {
          const redeemAt = instantOf(redeemBy);
          return unwrap(
            api.POST('/v1/admin/billing/coupons', {
              body: {
                name: name.trim(),
                duration: duration as 'once' | 'repeating' | 'forever',
                ...(kind === 'percent'
                  ? { percent_off: Number(percent) }
                  : { amount_off: minorOf(amount, currency) ?? 0, currency: currency.trim().toLowerCase() }),
                ...(duration === 'repeating' ? { duration_in_months: Number(months) } : {}),
                ...(maxRedemptions === '' ? {} : { max_redemptions: Number(maxRedemptions) }),
                ...(redeemAt === undefined ? {} : { redeem_by: redeemAt }),
              },
            }),
          );
        },
        success: (coupon) => `Coupon ${coupon.name} created`,
        failure: 'Could not create the coupon',
        invalidates: [['billing', 'coupons']],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        description="Players may see it on their invoice."
        autoFocus
      />
      <div className="inline-form">
        <ChoiceInput
          label="Discount"
          value={kind}
          choices={[
            { id: 'percent', label: 'A percentage' },
            { id: 'amount', label: 'An amount' },
          ]}
          onChange={setKind}
        />
        {kind === 'percent' ? (
          <TextInput
            label="Percent off"
            name="percent_off"
            type="number"
            value={percent}
            onChange={setPercent}
            isRequired
            minimum={0.01}
            maximum={rule('percent_off').maximum}
          />
        ) : (
          <>
            <TextInput
              label="Amount off"
              name="amount_off"
              value={amount}
              onChange={setAmount}
              isRequired
              pattern={{ source: '\\d+([.,]\\d{1,2})?', hint: 'An amount such as 5.00' }}
            />
            <TextInput
              label="Currency"
              name="currency"
              value={currency}
              onChange={setCurrency}
              isRequired
              pattern={{ source: '[A-Za-z]{3}', hint: 'Three letters, such as EUR' }}
            />
          </>
        )}
      </div>
      <div className="inline-form">
        <ChoiceInput label="Applies" value={duration} choices={DURATIONS} onChange={setDuration} />
        {duration === 'repeating' ? (
          <TextInput
            label="Months"
            name="duration_in_months"
            type="number"
            integer
            value={months}
            onChange={setMonths}
            isRequired
            minimum={rule('duration_in_months').minimum}
            maximum={rule('duration_in_months').maximum}
          />
        ) : null}
      </div>
      <div className="inline-form">
        <TextInput
          label="Most redemptions (optional)"
          name="max_redemptions"
          type="number"
          integer
          value={maxRedemptions}
          onChange={setMaxRedemptions}
          minimum={rule('max_redemptions').minimum}
          maximum={rule('max_redemptions').maximum}
        />
        <TextInput
          label="Redeem by (optional)"
          name="redeem_by"
          type="datetime-local"
          value={redeemBy}
          onChange={setRedeemBy}
        />
      </div>
    </FormDialog>
  );
}

function CreatePromotionCode({
  canWrite,
  coupons,
  couponId,
}: {
  canWrite: boolean;
  coupons: Coupon[];
  couponId: string;
}) {
  const [code, setCode] = useState('');
  const [coupon, setCoupon] = useState('');
  const [maxRedemptions, setMaxRedemptions] = useState('');
  const [expires, setExpires] = useState('');
  const [firstTime, setFirstTime] = useState(false);
  const [active, setActive] = useState(true);
  const rule = (field: string) => ruleOf(CREATE_CODE, field);
  const blocked = !canWrite ? NEEDS_WRITE : coupons.length === 0 ? 'Create a coupon first' : undefined;

  return (
    <FormDialog<PromotionCode>
      title="New promotion code"
      submitLabel="Create code"
      canSubmit={coupon !== ''}
      trigger={{
        label: 'New promotion code…',
        className: 'btn btn-primary',
        isDisabled: blocked !== undefined,
        disabledReason: blocked,
      }}
      onOpen={() => {
        setCode('');
        setCoupon(coupons.some((each) => each.id === couponId) ? couponId : (coupons[0]?.id ?? ''));
        setMaxRedemptions('');
        setExpires('');
        setFirstTime(false);
        setActive(true);
      }}
      write={{
        call: () => {
          const expiresAt = instantOf(expires);
          return unwrap(
            api.POST('/v1/admin/billing/promotion-codes', {
              body: {
                code: code.trim().toUpperCase(),
                coupon_id: coupon,
                first_time_only: firstTime,
                active,
                ...(maxRedemptions === '' ? {} : { max_redemptions: Number(maxRedemptions) }),
                ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
              },
            }),
          );
        },
        success: (created) => `Promotion code ${created.code} created`,
        failure: 'Could not create the promotion code',
        invalidates: [['billing', 'promotion-codes']],
      }}
    >
      <TextInput
        label="Code"
        name="code"
        value={code}
        onChange={(value) => setCode(value.toUpperCase())}
        isRequired
        pattern={{
          source: rule('code').pattern ?? '[A-Z0-9][A-Z0-9_-]{2,49}',
          hint: '3 to 50 letters, digits, _ or -, starting with a letter or digit',
        }}
        description="What players type at checkout."
        autoFocus
      />
      <ChoiceInput
        label="Coupon"
        value={coupon}
        choices={coupons.map((each) => ({ id: each.id, label: `${each.name} (${discountOf(each)})` }))}
        onChange={setCoupon}
      />
      <div className="inline-form">
        <TextInput
          label="Most redemptions (optional)"
          name="max_redemptions"
          type="number"
          integer
          value={maxRedemptions}
          onChange={setMaxRedemptions}
          minimum={rule('max_redemptions').minimum}
          maximum={rule('max_redemptions').maximum}
        />
        <TextInput
          label="Expires (optional)"
          name="expires_at"
          type="datetime-local"
          value={expires}
          onChange={setExpires}
        />
      </div>
      <Switch className="switch switch-labelled" isSelected={firstTime} onChange={setFirstTime}>
        <span className="switch-track" aria-hidden="true" />
        <span>First purchase only</span>
      </Switch>
      <Switch className="switch switch-labelled" isSelected={active} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>Active now</span>
      </Switch>
    </FormDialog>
  );
}
