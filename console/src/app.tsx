import { isPlatformApiError } from '@platform-api/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { RouterProvider } from 'react-aria-components';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { LiveProvider } from './api/realtime';
import { sessionStore } from './api/session';
import { Layout } from './shell/layout';
import { SignInPage } from './sign-in/sign-in-page';
import { ErrorBoundary } from './ui/error-boundary';
import { Toasts } from './ui/toasts';

// Screens load when first opened: the shell stays small (the build check holds it to its budget).
const HomePage = lazy(() => import('./screens/home'));
const UsersPage = lazy(() => import('./screens/users/users-list'));
const UserPage = lazy(() => import('./screens/users/user-page'));
const RolesPage = lazy(() => import('./screens/roles/roles-list'));
const RolePage = lazy(() => import('./screens/roles/role-page'));
const MaintenancePage = lazy(() => import('./screens/operations/maintenance'));
const JobsPage = lazy(() => import('./screens/operations/jobs'));
const AuditLogPage = lazy(() => import('./screens/operations/audit-log'));
const SettingsSectionsPage = lazy(() => import('./screens/site/settings-sections'));
const SettingsSectionPage = lazy(() => import('./screens/site/settings-section'));
const ContentBlocksPage = lazy(() => import('./screens/site/content-blocks'));
const AnnouncementsPage = lazy(() => import('./screens/site/announcements'));
const PagesPage = lazy(() => import('./screens/site/pages-list'));
const PageDetail = lazy(() => import('./screens/site/page-detail'));
const BillingOverviewPage = lazy(() => import('./screens/billing/overview'));
const BillingPaymentsPage = lazy(() => import('./screens/billing/payments'));
const BillingInvoicesPage = lazy(() => import('./screens/billing/invoices'));
const BillingSubscriptionsPage = lazy(() => import('./screens/billing/subscriptions'));
const BillingCouponsPage = lazy(() => import('./screens/billing/coupons'));
const BillingCreditsPage = lazy(() => import('./screens/billing/credits'));
const PlanProductsPage = lazy(() => import('./screens/plans/products'));
const PlanProductPage = lazy(() => import('./screens/plans/product-page'));
const PlanTiersPage = lazy(() => import('./screens/plans/tiers'));
const PlanMigratePage = lazy(() => import('./screens/plans/migrate'));
const TicketQueuePage = lazy(() => import('./screens/support/ticket-queue'));
const TicketPage = lazy(() => import('./screens/support/ticket-page'));
const BroadcastPage = lazy(() => import('./screens/notifications/broadcast'));
const BroadcastHistoryPage = lazy(() => import('./screens/notifications/history'));
const BroadcastDetailPage = lazy(() => import('./screens/notifications/broadcast-detail'));
const EmailAudiencesPage = lazy(() => import('./screens/email/audiences/audiences-list'));
const EmailAudiencePage = lazy(() => import('./screens/email/audiences/audience-page'));
const EmailCampaignsPage = lazy(() => import('./screens/email/campaigns/campaigns-list'));
const EmailCampaignPage = lazy(() => import('./screens/email/campaigns/campaign-page'));
const EmailTemplatesPage = lazy(() => import('./screens/email/templates/templates-list'));
const EmailTemplatePage = lazy(() => import('./screens/email/templates/template-page'));
const EmailOutboxPage = lazy(() => import('./screens/email/delivery/outbox'));
const EmailMessagePage = lazy(() => import('./screens/email/delivery/outbox-message'));
const EmailSuppressionsPage = lazy(() => import('./screens/email/delivery/suppressions'));
const EmailWaitlistPage = lazy(() => import('./screens/email/delivery/waitlist'));
const RuntimeNodesPage = lazy(() => import('./screens/runtime/nodes'));
const RuntimeNodePage = lazy(() => import('./screens/runtime/node-page'));
const RuntimePoolsPage = lazy(() => import('./screens/runtime/pools'));
const RuntimePoolPage = lazy(() => import('./screens/runtime/pool-page'));
const RuntimeSessionsPage = lazy(() => import('./screens/runtime/sessions'));
const RuntimeSessionPage = lazy(() => import('./screens/runtime/session-page'));
const StorageObjectsPage = lazy(() => import('./screens/storage/objects'));
const StoreGamesPage = lazy(() => import('./screens/store/games'));
const StoreGamePage = lazy(() => import('./screens/store/game-page'));
const StoreTermsPage = lazy(() => import('./screens/store/terms'));
const AchievementsPage = lazy(() => import('./screens/catalog/achievements'));
const ReferralRulesPage = lazy(() => import('./screens/catalog/referral-rules'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) shows at once, and a 401 ends the session (api/client.ts); only a failure
      // of the network or the service (5xx) is tried once more.
      retry: (count, error) => count < 1 && !(isPlatformApiError(error) && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

function useSession() {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
}

/** Pages that need a session: without one, sign-in, then back to the same page. */
function SignedIn({ children }: { children: (session: NonNullable<ReturnType<typeof useSession>>) => ReactNode }) {
  const session = useSession();
  const [location] = useLocation();
  const search = useSearch();
  if (session === undefined) {
    const next = `${location}${search === '' ? '' : `?${search}`}`;
    return <Redirect to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children(session)}</>;
}

/** How long a new screen may take to show its heading (a lazy screen loads, a record arrives). */
const HEADING_WAIT_MS = 5_000;

/**
 * After a navigation inside the console (not the first load), focus moves to the new screen's
 * heading, as a new page would put a screen reader at its top, and the page change is announced.
 * A screen's heading can come late (its code or its record loading): it is awaited, briefly.
 */
function useFocusAfterNavigation(location: string): string {
  const first = useRef(true);
  const [announcement, setAnnouncement] = useState('');
  useEffect(() => {
    if (first.current || location === '/sign-in') {
      first.current = false;
      return;
    }
    let cancelled = false;
    const started = performance.now();
    const tryFocus = () => {
      if (cancelled) return;
      // While a lazy screen loads, React keeps the old one in the page, hidden: only a shown heading counts.
      const heading = [...document.querySelectorAll<HTMLElement>('main h1')].find(
        (each) => each.getClientRects().length > 0,
      );
      if (heading === undefined) {
        if (performance.now() - started < HEADING_WAIT_MS) requestAnimationFrame(tryFocus);
        return;
      }
      // A dialog opened meanwhile keeps its focus.
      if (document.activeElement?.closest('[role="dialog"], [role="alertdialog"]')) return;
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: false });
      setAnnouncement(`${heading.textContent ?? ''} page`);
    };
    requestAnimationFrame(tryFocus);
    return () => {
      cancelled = true;
    };
  }, [location]);
  return announcement;
}

function Routes() {
  const [location, navigate] = useLocation();
  const announcement = useFocusAfterNavigation(location);
  useEffect(() => {
    document.documentElement.lang = 'en';
  }, []);
  return (
    <RouterProvider
      navigate={(path) => navigate(path)}
      useHref={(path) => (path.startsWith('/') ? `/admin${path}` : path)}
    >
      <Switch>
        <Route path="/sign-in" component={SignInPage} />
        <Route>
          <SignedIn>
            {(session) => (
              <LiveProvider key={session.subject}>
                <Layout session={session}>
                  <ErrorBoundary resetKey={location}>
                    <Suspense fallback={<p className="loading">Loading…</p>}>
                      <Switch>
                        <Route path="/" component={HomePage} />
                        <Route path="/users" component={UsersPage} />
                        <Route path="/users/:id">{(params) => <UserPage id={params.id} />}</Route>
                        <Route path="/roles" component={RolesPage} />
                        <Route path="/roles/:id">{(params) => <RolePage id={params.id} />}</Route>
                        <Route path="/operations" component={MaintenancePage} />
                        <Route path="/operations/jobs" component={JobsPage} />
                        <Route path="/operations/audit" component={AuditLogPage} />
                        <Route path="/site" component={SettingsSectionsPage} />
                        <Route path="/site/content-blocks" component={ContentBlocksPage} />
                        <Route path="/site/announcements" component={AnnouncementsPage} />
                        <Route path="/site/pages" component={PagesPage} />
                        <Route path="/site/pages/:id">{(params) => <PageDetail id={params.id} />}</Route>
                        <Route path="/support" component={TicketQueuePage} />
                        <Route path="/support/tickets/:id">{(params) => <TicketPage id={params.id} />}</Route>
                        <Route path="/site/settings/:section">
                          {(params) => <SettingsSectionPage name={params.section} />}
                        </Route>
                        <Route path="/email/audiences" component={EmailAudiencesPage} />
                        <Route path="/email/audiences/:id">{(params) => <EmailAudiencePage id={params.id} />}</Route>
                        <Route path="/email/campaigns" component={EmailCampaignsPage} />
                        <Route path="/email/campaigns/:id">{(params) => <EmailCampaignPage id={params.id} />}</Route>
                        <Route path="/billing" component={BillingOverviewPage} />
                        <Route path="/billing/payments" component={BillingPaymentsPage} />
                        <Route path="/billing/invoices" component={BillingInvoicesPage} />
                        <Route path="/billing/subscriptions" component={BillingSubscriptionsPage} />
                        <Route path="/billing/coupons" component={BillingCouponsPage} />
                        <Route path="/billing/credits" component={BillingCreditsPage} />
                        <Route path="/plans" component={PlanProductsPage} />
                        <Route path="/plans/products/:id">{(params) => <PlanProductPage id={params.id} />}</Route>
                        <Route path="/plans/tiers" component={PlanTiersPage} />
                        <Route path="/plans/migrate" component={PlanMigratePage} />
                        <Route path="/notifications" component={BroadcastPage} />
                        <Route path="/notifications/history" component={BroadcastHistoryPage} />
                        <Route path="/notifications/history/:id">
                          {(params) => <BroadcastDetailPage id={params.id} />}
                        </Route>
                        <Route path="/email">
                          <Redirect to="/email/templates" replace />
                        </Route>
                        <Route path="/email/templates" component={EmailTemplatesPage} />
                        <Route path="/email/templates/:key">
                          {(params) => <EmailTemplatePage templateKey={params.key} />}
                        </Route>
                        <Route path="/email/outbox" component={EmailOutboxPage} />
                        <Route path="/email/outbox/:id">{(params) => <EmailMessagePage id={params.id} />}</Route>
                        <Route path="/email/suppressions" component={EmailSuppressionsPage} />
                        <Route path="/email/waitlist" component={EmailWaitlistPage} />
                        <Route path="/runtime" component={RuntimeNodesPage} />
                        <Route path="/runtime/nodes/:id">{(params) => <RuntimeNodePage id={params.id} />}</Route>
                        <Route path="/runtime/pools" component={RuntimePoolsPage} />
                        <Route path="/runtime/pools/:id">{(params) => <RuntimePoolPage id={params.id} />}</Route>
                        <Route path="/runtime/sessions" component={RuntimeSessionsPage} />
                        <Route path="/runtime/sessions/:id">{(params) => <RuntimeSessionPage id={params.id} />}</Route>
                        <Route path="/storage" component={StorageObjectsPage} />
                        <Route path="/store" component={StoreGamesPage} />
                        <Route path="/store/games/:id">{(params) => <StoreGamePage id={params.id} />}</Route>
                        <Route path="/store/genres">{() => <StoreTermsPage key="genres" kind="genres" />}</Route>
                        <Route path="/store/developers">
                          {() => <StoreTermsPage key="developers" kind="developers" />}
                        </Route>
                        <Route path="/store/publishers">
                          {() => <StoreTermsPage key="publishers" kind="publishers" />}
                        </Route>
                        <Route path="/catalog" component={AchievementsPage} />
                        <Route path="/catalog/referral-rules" component={ReferralRulesPage} />
                        <Route>
                          <h1>Not found</h1>
                          <p>The console has no page at this address.</p>
                        </Route>
                      </Switch>
                    </Suspense>
                  </ErrorBoundary>
                </Layout>
              </LiveProvider>
            )}
          </SignedIn>
        </Route>
      </Switch>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
    </RouterProvider>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Router base="/admin">
        <Routes />
      </Router>
      <Toasts />
    </QueryClientProvider>
  );
}
