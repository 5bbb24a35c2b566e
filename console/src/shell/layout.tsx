import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { usePermissions } from '../api/permissions';
import { sessionStore, type Session } from '../api/session';
import { AREAS, areaVisible } from './areas';
import { MaintenanceBanner } from './maintenance-banner';
import { Palette } from './palette';

const isCurrent = (path: string, location: string) =>
  path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);

/** Every signed-in page: the header with the areas this staff member may read, the banner, the page. */
export function Layout({ session, children }: { session: Session; children: ReactNode }) {
  const permissions = usePermissions();
  const [location] = useLocation();
  const queryClient = useQueryClient();
  // On a narrow screen the areas sit behind a menu button (CSS shows the button there only).
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu.
  useEffect(() => setMenuOpen(false), [location]);
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
        <nav aria-label="Areas" className="areas" id="areas-nav" data-open={menuOpen || undefined}>
          {AREAS.filter((area) => areaVisible(area, permissions.can)).map((area) => (
            <Link
              key={area.path}
              href={area.path}
              className="area-link"
              aria-current={isCurrent(area.path, location) ? 'page' : undefined}
            >
              {area.label}
            </Link>
          ))}
        </nav>
        <Palette permissions={permissions} />
        <div className="account">
          <span className="account-email">{session.email ?? session.subject}</span>
          <Button className="btn btn-quiet" onPress={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <MaintenanceBanner permissions={permissions} />
      <main id="main" className="page" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
