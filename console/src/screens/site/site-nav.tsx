import { type AreaPart, SubNav } from '../../shell/sub-nav';

const PARTS: AreaPart[] = [
  { path: '/site', label: 'Settings sections', readWith: ['site.read', 'settings.read', 'billing.read'] },
  { path: '/site/content-blocks', label: 'Content blocks', readWith: ['content.read', 'content.write'] },
  { path: '/site/pages', label: 'Pages', readWith: ['site.read'] },
  { path: '/site/announcements', label: 'Announcements', readWith: ['site.read', 'announcements.read'] },
];

export const SiteNav = () => <SubNav label="Site" parts={PARTS} />;
