import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { alertCatalogBody, roleAlertsBody, roleIdParams, setAlertsBody } from './schemas.js';
import { UNHELD_ROLE_KEYS_REFUSAL } from '../roles/index.js';
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
          `Replaces the role's subscriptions (the built-in owner's too, by a caller holding \`*\`: they are a ` +
          `notice, not a power). ${UNHELD_ROLE_KEYS_REFUSAL}. Holders of the role receive each alert on the ` +
          `realtime channel \`alerts:<role key>\` (listed by \`GET /v1/me/realtime\`). Subscribing to an alert ` +
          `requires holding a permission that reads it (403 \`forbidden\`, \`details.perm\`); an alert listed twice ` +
          `is 409 \`conflict\`; an unknown alert name is a 400 SchemaError. Audited as \`roles.alerts.set\`; ` +
          `dashboard event \`roles.alerts_changed\`. ${unknownRole}`,
        params: roleIdParams,
        body: setAlertsBody,
        response: { 200: roleAlertsBody },
      },
    },
    (request) => alerts.set(actorOf(request), request.params.id, request.body),
  );
}
