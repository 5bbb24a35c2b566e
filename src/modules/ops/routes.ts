import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { maintenanceNotice, panicResult, panicStateBody, setPanicBody } from './schemas.js';
import { OpsService } from './service.js';

const tags = ['ops'];

export function registerOpsRoutes(app: ZodApp, deps: Deps<'db' | 'panic' | 'write'>): void {
  const ops = new OpsService(deps.db, deps.write, deps.panic);

  app.get(
    '/v1/admin/ops/panic',
    {
      config: { perms: ['ops.read', 'ops.panic'] },
      schema: {
        operationId: 'getOpsPanicMode',
        tags,
        summary: 'The current maintenance (panic) level',
        response: { 200: panicStateBody },
      },
    },
    () => ops.current(),
  );

  // Every staff member sees the level, whatever their role: support and editors field players'
  // questions during an incident. It is no secret to staff; only ops.panic changes it.
  app.get(
    '/v1/me/maintenance',
    {
      config: { staff: true },
      schema: {
        operationId: 'getMaintenanceNotice',
        tags: ['me: staff'],
        summary: 'The maintenance level, for any staff member',
        description:
          'The level in force, why, since when and who set it (`set_by_name`: display name, else email; null for ' +
          'incident monitoring). Any staff member may read it (a caller holding any permission key); a player ' +
          'without one is 403 `forbidden` (`details.reason` `staff_only`). Changing it needs `ops.panic` ' +
          '(`POST /v1/admin/ops/panic`).',
        response: { 200: maintenanceNotice },
      },
    },
    () => ops.notice(),
  );

  app.post(
    '/v1/admin/ops/panic',
    {
      config: { perms: ['ops.panic'] },
      schema: {
        operationId: 'setOpsPanicMode',
        tags,
        summary: 'Set the maintenance level',
        description:
          '`degraded` refuses new checkouts and new game sessions; `lockdown` refuses every write from ' +
          '`/v1/public` and `/v1/me` except stopping a game session. Reads, `/health` and staff routes always ' +
          'pass. Every instance enforces the new level within a second. Emits the alert `panic_mode_changed` and ' +
          'a dashboard event, and is listed at `GET /v1/admin/ops/incidents`. A level set here is never changed ' +
          'by incident monitoring; `off` also silences the incident rules that were failing, each for its ' +
          'cool-down.',
        body: setPanicBody,
        response: { 200: panicResult },
      },
    },
    (request) => ops.setPanicMode(actorOf(request), request.body),
  );
}
