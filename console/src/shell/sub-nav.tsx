import { Link, useLocation } from 'wouter';
import { usePermissions } from '../api/permissions';

export interface AreaPart {
  path: string;
  label: string;
  /** Any one of these lets a staff member read the part. */
  readWith: string[];
}

/** The parts of an area (Operations, Site), each shown to staff who may read it. */
export function SubNav({ label, parts }: { label: string; parts: AreaPart[] }) {
  const permissions = usePermissions();
  const [location] = useLocation();
  return (
    <nav aria-label={label} className="subnav">
      {parts
        .filter((part) => permissions.can(...part.readWith))
        .map((part) => (
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
