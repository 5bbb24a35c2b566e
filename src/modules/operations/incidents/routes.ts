import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { changesPage, changesQuery, replaceRulesBody, rulesBody } from './schemas.js';
import { IncidentsService } from './service.js';

const tags = ['ops'];
const PANIC = { perms: ['ops.panic'] } as const;
const READ = { perms: ['ops.read', 'ops.panic'] } as const;

/**
 * Incident monitoring (issue 10). The monitor itself is the platform's (`platform.incidents`: it
 * ticks on every instance); these routes edit its rules and show what it and people changed.
 *   GET /v1/admin/ops/incident-rules   the rules, with the monitor's state of each
 *   PUT /v1/admin/ops/incident-rules   replace the list
 *   GET /v1/admin/ops/incidents        every level change, newest first (page/per_page)
 */
export function registerIncidentRoutes(app: ZodApp, deps: Deps<'db' | 'incidents' | 'write'>): void {
  const incidents = new IncidentsService(deps.db, deps.write);

  app.get(
    '/v1/admin/ops/incident-rules',
    {
      config: PANIC,
      schema: { operationId: 'getOpsIncidentRules', tags, summary: 'The incident rules', response: { 200: rulesBody } },
    },
    () => incidents.rules(),
  );

  app.put(
    '/v1/admin/ops/incident-rules',
    {
      config: PANIC,
      schema: {
        operationId: 'setOpsIncidentRules',
        tags,
        summary: 'Replace the incident rules',
        description:
          'The whole list: rules left out are removed; a kept rule keeps its state (a rule holding the level ' +
          'keeps holding it; one removed leaves its level to a person). Ratio thresholds lie above 0 up to 1, ' +
          'latency thresholds are at least 1 ms; keys are unique (400 SchemaError otherwise). Audited as ' +
          '`ops.incident_rules.update`; emits the dashboard event `ops.incident_rules_updated`.',
        body: replaceRulesBody,
        response: { 200: rulesBody },
      },
    },
    (request) => incidents.replaceRules(actorOf(request), request.body),
  );

  app.get(
    '/v1/admin/ops/incidents',
    {
      config: READ,
      schema: {
        operationId: 'listOpsIncidents',
        tags,
        summary: 'The history of maintenance level changes',
        description:
          'Automatic (`auto: true`, `set_by: "incident-monitor"`, with the rule and the signals it measured) and ' +
          'manual changes, newest first (`sort=created_at:asc` for oldest first); `meta.total` counts them all. ' +
          '`limit` and `offset`, which this list took before it paged with `page` and `per_page`, are refused ' +
          '(400 SchemaError).',
        querystring: changesQuery,
        response: { 200: changesPage },
      },
    },
    (request) => incidents.changes(request.query),
  );
}
