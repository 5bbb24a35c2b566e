import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { alertCatalogBody, roleAlertsBody, roleIdParams, setAlertsBody } from './schemas.js';
import { AlertSubscriptionService } from './service.js';

const tags = ['roles'];
const unknownRole = 'An unknown role id is 404 `not_found`.';

/** Alert subscriptions of roles: the spec's "alert `panic_mode_changed` to subscribed roles". */
export function registerAlertSubscriptionRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const alerts = new AlertSubscriptionService(deps.db, deps.write);

  app.get(
    '/v1/admin/alerts',
    {
      config: { perms: ['roles.read'] },
      schema: {
        operationId: 'listAdminAlerts',
        tags,
        summary: 'The alerts the service raises',
        response: { 200: alertCatalogBody },
      },
    },
    () => alerts.catalog(),
  );

  app.get(
    '/v1/admin/roles/:id/alerts',
    {
      config: { perms: ['roles.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getAdminRoleAlerts',
        tags,
        summary: 'The alerts a role hears',
        description: unknownRole,
        params: roleIdParams,
        response: { 200: roleAlertsBody },
      },
    },
    (request) => alerts.get(request.params.id),
  );

  app.put(
    '/v1/admin/roles/:id/alerts',
    {
      config: { perms: ['roles.write'], errors: { 404: ['not_found'], 409: ['conflict'] } },
      schema: {
        operationId: 'setAdminRoleAlerts',
        tags,
        summary: 'Set the alerts a role hears',
        description:
          "Replaces the role's alert subscriptions; its holders then receive each alert on the realtime channel " +
          '`alerts:<role key>`. Each alert needs a permission that reads it; audited as `roles.alerts.set`. In ' +
          'depth: [docs/api/roles.md](docs/api/roles.md#set-the-alerts-a-role-hears).',
        params: roleIdParams,
        body: setAlertsBody,
        response: { 200: roleAlertsBody },
      },
    },
    (request) => alerts.set(actorOf(request), request.params.id, request.body),
  );
}
