import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
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
          'Sets the maintenance level (`off`, `degraded`, `lockdown`) that every instance enforces within a ' +
          'second; reads, `/health` and staff routes always pass. Emits the alert `panic_mode_changed`; incident ' +
          'monitoring never overrides it. In depth: [docs/api/ops.md](docs/api/ops.md#set-the-maintenance-level).',
        body: setPanicBody,
        response: { 200: panicResult },
      },
    },
    (request) => ops.setPanicMode(actorOf(request), request.body),
  );
}
