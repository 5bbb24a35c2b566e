import { type AreaPart, SubNav } from '../../shell/sub-nav';
import './plans.css';

const read = ['plans.read'];
const PARTS: AreaPart[] = [
  { path: '/plans', label: 'Products and prices', readWith: read },
  { path: '/plans/tiers', label: 'Tiers and rulesets', readWith: read },
  { path: '/plans/migrate', label: 'Migrate subscribers', readWith: read },
];

export const PlansNav = () => <SubNav label="Plans" parts={PARTS} />;
