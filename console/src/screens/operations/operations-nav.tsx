import { Link, useLocation } from 'wouter';
import { usePermissions } from '../../api/permissions';

/** The parts of Operations, each shown to staff who may read it. */
const PARTS = [
  { path: '/operations', label: 'Maintenance and incidents', readWith: ['ops.read', 'ops.panic'] },
  { path: '/operations/jobs', label: 'Scheduled jobs', readWith: ['settings.read'] },
  { path: '/operations/audit', label: 'Audit log', readWith: ['audit.read'] },
];

export const OPERATIONS_READ = [...new Set(PARTS.flatMap((part) => part.readWith))];

export function OperationsNav() {
  const permissions = usePermissions();
  const [location] = useLocation();
  return (
    <nav aria-label="Operations" className="subnav">
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
