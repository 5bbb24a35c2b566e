import { Link, useLocation } from 'wouter';
import { usePermissions } from '../api/permissions';

export interface AreaPart {
  path: string;
  label: string;
  /** Any one of these lets a staff member read the part. */
  readWith: string[];
}

/**
 * The parts of an area (Operations, Site), each shown to staff who may read it. The part holding
 * the page is marked: `page` on the part's own list, `true` on a page within it (a template, a
 * message), the part with the longest matching path winning.
 */
export function SubNav({ label, parts }: { label: string; parts: AreaPart[] }) {
  const permissions = usePermissions();
  const [location] = useLocation();
  const within = parts
    .filter((part) => location.startsWith(`${part.path}/`))
    .sort((a, b) => b.path.length - a.path.length)[0]?.path;
  return (
    <nav aria-label={label} className="subnav">
      {parts
        .filter((part) => permissions.can(...part.readWith))
        .map((part) => (
          <Link
            key={part.path}
            href={part.path}
            className="area-link"
            aria-current={location === part.path ? 'page' : part.path === within ? 'true' : undefined}
          >
            {part.label}
          </Link>
        ))}
    </nav>
  );
}
