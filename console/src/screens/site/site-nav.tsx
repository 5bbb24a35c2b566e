import { Link, useLocation } from 'wouter';
import { usePermissions } from '../../api/permissions';

/** The parts of Site that exist, each shown to staff who may read it. */
const PARTS = [{ path: '/site', label: 'Settings sections', readWith: ['site.read', 'settings.read', 'billing.read'] }];

export const SITE_READ = [...new Set(PARTS.flatMap((part) => part.readWith))];

export function SiteNav() {
  const permissions = usePermissions();
  const [location] = useLocation();
  return (
    <nav aria-label="Site" className="subnav">
      {PARTS.filter((part) => permissions.can(...part.readWith)).map((part) => (
        <Link
          key={part.path}
          href={part.path}
          className="area-link"
          aria-current={location === part.path ? 'page' : undefined}
        >
          {part.label}
        </Link>
      ))}
    </nav>
  );
}
