import { type AreaPart, SubNav } from '../../shell/sub-nav';

const read = ['content.read'];
const PARTS: AreaPart[] = [
  { path: '/catalog', label: 'Achievements', readWith: read },
  { path: '/catalog/referral-rules', label: 'Referral rules', readWith: read },
];

export const CatalogNav = () => <SubNav label="Catalog" parts={PARTS} />;
