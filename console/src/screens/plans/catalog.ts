import type { components } from '@platform-api/sdk';
import { formatMoney } from '../billing/money';

export type Product = components['schemas']['Product'];
export type Price = components['schemas']['Price'];

export const NEEDS_WRITE = 'Needs plans.write';

/** `€4.99 / month`, `€9.00` (a credit pack's one-off price). */
export const priceLabel = (price: Pick<Price, 'unitAmount' | 'currency' | 'interval'>) =>
  `${formatMoney(price.unitAmount, price.currency)}${price.interval === null ? '' : ` / ${price.interval}`}`;

/** The price on sale in each currency (the API allows one active price per currency). */
export const activePrices = (product: Product) =>
  product.prices.filter((price) => price.isActive).sort((a, b) => a.currency.localeCompare(b.currency));

export const kindLabel = (kind: Product['kind']) => (kind === 'plan' ? 'Plan' : 'Credit pack');
