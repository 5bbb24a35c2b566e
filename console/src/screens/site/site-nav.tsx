import { type AreaPart, SubNav } from '../../shell/sub-nav';

const PARTS: AreaPart[] = [
  { path: '/site', label: 'Settings sections', readWith: ['site.read', 'settings.read', 'billing.read'] },
];

export const SiteNav = () => <SubNav label="Site" parts={PARTS} />;
