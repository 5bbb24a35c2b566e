import { jobsOf, permissionsOf, tagsOf, type AreaModule, type DeclaredPermissionKey } from '../kernel/areas/module.js';
import { PermissionCatalog } from '../kernel/permissions.js';
import { accountDeletionModule } from './account-deletion/module.js';
import { alertSubscriptionsModule } from './operations/alert-subscriptions/module.js';
import { auditModule } from './audit/module.js';
import { billingCatalogModule } from './billing/catalog/module.js';
import { checkoutModule } from './billing/checkout/module.js';
import { consoleModule } from './console/module.js';
import { couponsModule } from './billing/coupons/module.js';
import { creditsModule } from './billing/credits/module.js';
import { billingOverviewModule } from './billing/overview/module.js';
import { paymentsModule } from './billing/payments/module.js';
import { subscriptionsModule } from './billing/subscriptions/module.js';
import { catalogModule } from './store/catalog/module.js';
import { deviceAuthorizationModule } from './device-authorization/module.js';
import { emailAudiencesModule } from './email/audiences/module.js';
import { emailCampaignsModule } from './email/campaigns/module.js';
import { emailDeliveryModule } from './email/delivery/module.js';
import { emailTemplatesModule } from './email/templates/module.js';
import { emailUnsubscribeModule } from './email/unsubscribe/module.js';
import { gameSessionsModule } from './game-sessions/module.js';
import { healthModule } from './operations/health/module.js';
import { incidentsModule } from './operations/incidents/module.js';
import { loginSessionsModule } from './login-sessions/module.js';
import { meModule } from './me/module.js';
import { notificationsModule } from './notifications/module.js';
import { opsModule } from './operations/maintenance/module.js';
import { plansModule } from './plans/module.js';
import { realtimeModule } from './realtime/module.js';
import { rolesModule } from './roles/module.js';
import { runtimeModule } from './runtime/module.js';
import { announcementsModule } from './site/announcements/module.js';
import { contentBlocksModule } from './site/content-blocks/module.js';
import { sitePagesModule } from './site/pages/module.js';
import { publicSiteModule } from './site/public/module.js';
import { siteSettingsModule } from './site/settings/module.js';
import { storageModule } from './files/module.js';
import { storeGamesModule } from './store/games/module.js';
import { publicStoreModule } from './store/public/module.js';
import { storeTermsModule } from './store/terms/module.js';
import { supportModule } from './support/module.js';
import { systemModule } from './operations/scheduled-jobs/module.js';
import { usersModule } from './users/module.js';
import { waitlistModule } from './waitlist/module.js';

/**
 * Every area of the service, in the order src/app.ts registers their routes: the order of the
 * OpenAPI document. A new area: its module.ts (src/kernel/areas/module.ts says what it describes) and a
 * line here.
 */
export const AREAS = [
  healthModule,
  meModule,
  rolesModule,
  alertSubscriptionsModule,
  usersModule,
  opsModule,
  auditModule,
  catalogModule,
  plansModule,
  billingCatalogModule,
  siteSettingsModule,
  storeGamesModule,
  storeTermsModule,
  publicStoreModule,
  contentBlocksModule,
  sitePagesModule,
  announcementsModule,
  publicSiteModule,
  systemModule,
  gameSessionsModule,
  runtimeModule,
  creditsModule,
  checkoutModule,
  couponsModule,
  paymentsModule,
  subscriptionsModule,
  billingOverviewModule,
  emailDeliveryModule,
  emailTemplatesModule,
  emailAudiencesModule,
  emailCampaignsModule,
  emailUnsubscribeModule,
  waitlistModule,
  notificationsModule,
  supportModule,
  accountDeletionModule,
  realtimeModule,
  storageModule,
  loginSessionsModule,
  deviceAuthorizationModule,
  incidentsModule,
  consoleModule,
] as const satisfies readonly AreaModule[];

/** Every scheduled job's handler, by key. */
export const JOB_HANDLERS = jobsOf(AREAS);

/** The OpenAPI document's tags with their descriptions. */
export const API_TAGS = tagsOf(AREAS);

/** Every permission key the areas declare, with what it allows. */
export const PERMISSION_CATALOG = permissionsOf(AREAS);

declare module '../kernel/permissions.js' {
  /** `PermissionKey` is exactly the keys of the areas listed above. */
  interface DeclaredPermissions extends Record<DeclaredPermissionKey<(typeof AREAS)[number]>, string> {}
}

/** The catalog the kernel holds: roles may hold its keys, GET /v1/admin/permissions lists it. */
export const PERMISSIONS = new PermissionCatalog(PERMISSION_CATALOG);
