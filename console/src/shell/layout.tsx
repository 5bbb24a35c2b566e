import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { usePermissions } from '../api/permissions';
import { sessionStore, type Session } from '../api/session';
import { AREA_GROUPS, AREAS, type Area, areaVisible, groupOf } from './areas';
import { MaintenanceBanner } from './maintenance-banner';
import { Palette } from './palette';

const isCurrent = (path: string, location: string) =>
  path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);

function AreaLink({ area, location }: { area: Area; location: string }) {
  return (
    <Link href={area.path} className="area-link" aria-current={isCurrent(area.path, location) ? 'page' : undefined}>
      {area.label}
    </Link>
  );
}

/**
 * Every signed-in page: the header (the palette, who is signed in), the banner, and the areas this
 * staff member may read in a sidebar by group; on a narrow screen the areas sit behind a menu button.
 */
export function Layout({ session, children }: { session: Session; children: ReactNode }) {
  const permissions = usePermissions();
  const [location] = useLocation();
  const queryClient = useQueryClient();
  // On a narrow screen the areas sit behind a menu button (CSS shows the button there only).
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu.
  useEffect(() => setMenuOpen(false), [location]);
  const visible = AREAS.filter((area) => areaVisible(area, permissions.can));
  const signOut = () => {
    void sessionStore.signOut();
    queryClient.clear();
  };
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Platform console</span>
        <Button
          className="btn btn-quiet menu-button"
          aria-expanded={menuOpen}
          aria-controls="areas-nav"
          onPress={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </Button>
        <Palette permissions={permissions} />
        <div className="account">
          <span className="account-email">{session.email ?? session.subject}</span>
          <Button className="btn btn-quiet" onPress={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <MaintenanceBanner permissions={permissions} />
      <div className="frame">
        <nav aria-label="Areas" className="areas" id="areas-nav" data-open={menuOpen || undefined}>
          {visible
            .filter((area) => groupOf(area) === undefined)
            .map((area) => (
              <AreaLink key={area.path} area={area} location={location} />
            ))}
          {AREA_GROUPS.map((group) => {
            const inGroup = visible.filter((area) => groupOf(area) === group);
            if (inGroup.length === 0) return null;
            const id = `area-group-${group.toLowerCase()}`;
            return (
              <div key={group} className="area-group">
                <span id={id} className="area-group-label">
                  {group}
                </span>
                <ul aria-labelledby={id}>
                  {inGroup.map((area) => (
                    <li key={area.path}>
                      <AreaLink area={area} location={location} />
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </nav>
        <main id="main" className="page" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
