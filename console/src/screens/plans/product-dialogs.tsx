import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Switch } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { minorDigits, minorOf } from '../billing/money';
import { NEEDS_WRITE, type Product, priceLabel } from './catalog';

interface Tier {
  key: string;
  name: string;
}

const UPDATE_PRODUCT = 'PATCH /v1/admin/plans/products/{id}';
const CREATE_PRICE = 'POST /v1/admin/plans/products/{id}/prices';

const KINDS = [
  { id: 'plan', label: 'Plan (a subscription that gives a tier)' },
  { id: 'credit_pack', label: 'Credit pack (bought once)' },
];

/** New product: a plan with its tier, or a credit pack with its credits. Prices are added on its page. */
export function CreateProduct({ canWrite, tiers }: { canWrite: boolean; tiers: Tier[] }) {
  const [, navigate] = useLocation();
  const [kind, setKind] = useState('plan');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tierKey, setTierKey] = useState('');
  const [credits, setCredits] = useState('');
  const [sortOrder, setSortOrder] = useState('0');
  const [isActive, setActive] = useState(true);
  // The create body is a union of the two kinds (no per-field rules in the document); the update takes the same bounds.
  const rule = (field: string) => ruleOf(UPDATE_PRODUCT, field);
  return (
    <FormDialog<{ id: string }>
      title="New product"
      submitLabel="Create product"
      canSubmit={kind === 'credit_pack' || tierKey !== ''}
      trigger={{
        label: 'New product…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setKind('plan');
        setName('');
        setDescription('');
        setTierKey(tiers[0]?.key ?? '');
        setCredits('');
        setSortOrder('0');
        setActive(true);
      }}
      write={{
        call: () => {
          const common = {
            name,
            ...(description.trim() === '' ? {} : { description: description.trim() }),
            sortOrder: Number(sortOrder || '0'),
            isActive,
          };
          return unwrap(
            api.POST('/v1/admin/plans/products', {
              body:
                kind === 'plan'
                  ? { kind: 'plan', tierKey, ...common }
                  : { kind: 'credit_pack', credits: Number(credits), ...common },
            }),
          );
        },
        success: `Product ${name.trim()} created: add its prices`,
        failure: 'Could not create the product',
        invalidates: [['plans', 'products']],
        onDone: (created) => navigate(`/plans/products/${created.id}`),
      }}
    >
      <ChoiceInput label="Kind" value={kind} choices={KINDS} onChange={setKind} />
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        maxLength={rule('name').maxLength}
        description="Players see it in the store and on their invoices."
        autoFocus
      />
      <GivesField
        kind={kind}
        tiers={tiers}
        tierKey={tierKey}
        onTierKey={setTierKey}
        credits={credits}
        onCredits={setCredits}
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        multiline
        maxLength={rule('description').maxLength}
      />
      <TextInput
        label="Sort order"
        name="sortOrder"
        type="number"
        integer
        value={sortOrder}
        onChange={setSortOrder}
        minimum={rule('sortOrder').minimum}
        maximum={rule('sortOrder').maximum}
        description="Lists show products by sort order, then name."
      />
      <Switch className="switch switch-labelled" isSelected={isActive} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>On sale once it has a price</span>
      </Switch>
    </FormDialog>
  );
}

/** Edit a product's name, description, tier or credits and sort order (its kind is fixed). */
export function EditProduct({ product, canWrite, tiers }: { product: Product; canWrite: boolean; tiers: Tier[] }) {
  const [name, setName] = useState(product.name);
  const [description, setDescription] = useState(product.description ?? '');
  const [tierKey, setTierKey] = useState(product.tierKey ?? '');
  const [credits, setCredits] = useState(String(product.credits ?? ''));
  const [sortOrder, setSortOrder] = useState(String(product.sortOrder));
  const rule = (field: string) => ruleOf(UPDATE_PRODUCT, field);
  return (
    <FormDialog<Product>
      title={`Edit ${product.name}`}
      submitLabel="Save product"
      trigger={{
        label: 'Edit…',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName(product.name);
        setDescription(product.description ?? '');
        setTierKey(product.tierKey ?? '');
        setCredits(String(product.credits ?? ''));
        setSortOrder(String(product.sortOrder));
      }}
      write={{
        call: () =>
          unwrap(
            api.PATCH('/v1/admin/plans/products/{id}', {
              params: { path: { id: product.id } },
              body: {
                name,
                description: description.trim() === '' ? null : description.trim(),
                sortOrder: Number(sortOrder || '0'),
                ...(product.kind === 'plan' ? { tierKey } : { credits: Number(credits) }),
              },
            }),
          ),
        success: (saved) => `Product ${saved.name} saved`,
        failure: 'Could not save the product',
        invalidates: [
          ['plans', 'products'],
          ['plans', 'product', product.id],
        ],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        maxLength={rule('name').maxLength}
        autoFocus
      />
      <GivesField
        kind={product.kind}
        tiers={tiers}
        tierKey={tierKey}
        onTierKey={setTierKey}
        credits={credits}
        onCredits={setCredits}
        description="Applies to later purchases only."
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        multiline
        maxLength={rule('description').maxLength}
      />
      <TextInput
        label="Sort order"
        name="sortOrder"
        type="number"
        integer
        value={sortOrder}
        onChange={setSortOrder}
        minimum={rule('sortOrder').minimum}
        maximum={rule('sortOrder').maximum}
      />
    </FormDialog>
  );
}

const INTERVALS = [
  { id: 'month', label: 'Every month' },
  { id: 'year', label: 'Every year' },
];

/** A new price in a currency: a plan's renews each interval, a pack's is paid once. */
/** What a product gives: a plan's tier, chosen by name, or a pack's credits within the API's bounds. */
function GivesField(props: {
  kind: string;
  tiers: Tier[];
  tierKey: string;
  onTierKey: (key: string) => void;
  credits: string;
  onCredits: (credits: string) => void;
  description?: string;
}) {
  const rule = ruleOf(UPDATE_PRODUCT, 'credits');
  return props.kind === 'plan' ? (
    <ChoiceInput
      label="Tier it gives"
      value={props.tierKey}
      choices={props.tiers.map((tier) => ({ id: tier.key, label: tier.name }))}
      onChange={props.onTierKey}
    />
  ) : (
    <TextInput
      label="Credits per pack"
      name="credits"
      type="number"
      integer
      value={props.credits}
      onChange={props.onCredits}
      isRequired
      minimum={rule.minimum}
      maximum={rule.maximum}
      description={props.description}
    />
  );
}

export function AddPrice({ product, canWrite }: { product: Product; canWrite: boolean }) {
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('EUR');
  const [interval, setInterval] = useState('month');
  const [providerPriceId, setProviderPriceId] = useState('');
  const [isActive, setActive] = useState(true);
  const rule = (field: string) => ruleOf(CREATE_PRICE, field);
  const code = currency.trim().toLowerCase();
  const minor = /^[a-z]{3}$/.test(code) ? minorOf(amount, code) : undefined;
  const onSale = product.prices.find((price) => price.isActive && price.currency === code);
  return (
    <FormDialog<{ id: string; providerPriceId: string }>
      title={`Add a price to ${product.name}`}
      submitLabel="Add price"
      canSubmit={minor !== undefined}
      trigger={{
        label: 'Add price…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setAmount('');
        setCurrency('EUR');
        setInterval('month');
        setProviderPriceId('');
        setActive(true);
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/plans/products/{id}/prices', {
              params: { path: { id: product.id } },
              body: {
                currency: code,
                unitAmount: minor ?? 0,
                ...(product.kind === 'plan' ? { interval: interval as 'month' | 'year' } : {}),
                ...(providerPriceId.trim() === '' ? {} : { providerPriceId: providerPriceId.trim() }),
                isActive,
              },
            }),
          ),
        success: () =>
          `Price ${priceLabel({ unitAmount: minor ?? 0, currency: code, interval: product.kind === 'plan' ? (interval as 'month' | 'year') : null })} added`,
        failure: 'Could not add the price',
        invalidates: [
          ['plans', 'products'],
          ['plans', 'product', product.id],
        ],
      }}
    >
      <div className="inline-form">
        <TextInput
          label="Amount"
          name="unitAmount"
          value={amount}
          onChange={setAmount}
          isRequired
          pattern={{
            source: minorDigits(/^[a-z]{3}$/.test(code) ? code : 'eur') === 0 ? '\\d+' : '\\d+([.,]\\d{1,3})?',
            hint: 'An amount such as 4.99',
          }}
          autoFocus
        />
        <TextInput
          label="Currency"
          name="currency"
          value={currency}
          onChange={setCurrency}
          isRequired
          pattern={{ source: '[A-Za-z]{3}', hint: 'Three letters, such as EUR' }}
        />
        {product.kind === 'plan' ? (
          <ChoiceInput label="Renews" value={interval} choices={INTERVALS} onChange={setInterval} />
        ) : null}
      </div>
      <TextInput
        label="Provider price id (optional)"
        name="providerPriceId"
        value={providerPriceId}
        onChange={setProviderPriceId}
        pattern={{ source: rule('providerPriceId').pattern ?? '[A-Za-z0-9_-]{1,255}', hint: 'Letters, digits, _ or -' }}
        description="Stripe's price_… id from its dashboard; with the local provider leave it empty and one is made."
      />
      <Switch className="switch switch-labelled" isSelected={isActive} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>Active (on sale)</span>
      </Switch>
      {isActive && onSale !== undefined ? (
        <p className="hint">
          {priceLabel(onSale)} is on sale in {code.toUpperCase()}: only one price per currency may be active. Deactivate
          it first, or add this one inactive.
        </p>
      ) : null}
    </FormDialog>
  );
}
