import { type AreaPart, SubNav } from '../../shell/sub-nav';
import './billing.css';

const read = ['billing.read'];
const PARTS: AreaPart[] = [
  { path: '/billing', label: 'Overview', readWith: read },
  { path: '/billing/payments', label: 'Payments', readWith: read },
  { path: '/billing/invoices', label: 'Invoices', readWith: read },
  { path: '/billing/subscriptions', label: 'Subscriptions', readWith: read },
  { path: '/billing/coupons', label: 'Coupons', readWith: read },
  { path: '/billing/credits', label: 'Credits', readWith: read },
];

export const BillingNav = () => <SubNav label="Billing" parts={PARTS} />;
