import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { RuntimeAdminService } from './service.js';
import {
  createRuntimePool,
  drainRuntimeNode,
  getRuntimeNode,
  getRuntimePool,
  listRuntimeNodes,
  listRuntimePools,
  pullRuntimeNodeImage,
  setRuntimeNodePool,
  undrainRuntimeNode,
  updateRuntimePool,
} from './route-options.js';

// Staff administration of runtime nodes and pools. The Runtime service holds them; these routes
// pass the staff member's request on and audit what it accepted. (Session routes live with the
// game sessions.)

/** Runtime nodes: read, pull an image, drain, assign to a pool. */
export function registerRuntimeNodeRoutes(app: ZodApp, deps: Deps<'runtime' | 'write'>): void {
  const runtime = new RuntimeAdminService(deps.write, deps.runtime);

  app.get('/v1/admin/runtime/nodes', listRuntimeNodes, (request) => runtime.listNodes(request.query));

  app.get('/v1/admin/runtime/nodes/:id', getRuntimeNode, (request) => runtime.getNode(request.params.id));

  app.post('/v1/admin/runtime/nodes/:id/pull-image', pullRuntimeNodeImage, (request) =>
    runtime.pullImage(actorOf(request), request.params.id, request.body.image),
  );

  app.post('/v1/admin/runtime/nodes/:id/drain', drainRuntimeNode, (request) =>
    runtime.setDraining(actorOf(request), request.params.id, true, request.body?.reason),
  );

  app.post('/v1/admin/runtime/nodes/:id/undrain', undrainRuntimeNode, (request) =>
    runtime.setDraining(actorOf(request), request.params.id, false, request.body?.reason),
  );

  app.put('/v1/admin/runtime/nodes/:id/pool', setRuntimeNodePool, (request) =>
    runtime.assignPool(actorOf(request), request.params.id, request.body.pool_id, request.body.reason),
  );
}

/** Runtime pools: read, created, changed. */
export function registerRuntimePoolRoutes(app: ZodApp, deps: Deps<'runtime' | 'write'>): void {
  const runtime = new RuntimeAdminService(deps.write, deps.runtime);

  app.get('/v1/admin/runtime/pools', listRuntimePools, () => runtime.listPools());

  app.get('/v1/admin/runtime/pools/:id', getRuntimePool, (request) => runtime.getPool(request.params.id));

  app.post('/v1/admin/runtime/pools', createRuntimePool, async (request, reply) =>
    reply.code(201).send(await runtime.createPool(actorOf(request), request.body)),
  );

  app.patch('/v1/admin/runtime/pools/:id', updateRuntimePool, (request) =>
    runtime.updatePool(actorOf(request), request.params.id, request.body),
  );
}
