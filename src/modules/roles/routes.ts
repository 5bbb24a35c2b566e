import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { RolesService } from './service.js';
import {
  bulkAssignAdminUserRoles,
  createAdminRole,
  deleteAdminRole,
  getAdminRole,
  listAdminPermissions,
  listAdminRoles,
  setAdminRolePermissions,
  updateAdminRole,
} from './route-options.js';

/** Roles and the permissions each grants. */
export function registerRoleRoutes(app: ZodApp, deps: Deps<'db' | 'permissions' | 'write'>): void {
  const roles = new RolesService(deps.db, deps.write, deps.permissions);

  app.get('/v1/admin/roles', listAdminRoles, (request) => roles.list(request.query));

  app.post('/v1/admin/roles', createAdminRole, async (request, reply) =>
    reply.code(201).send(await roles.create(actorOf(request), request.body)),
  );

  app.get('/v1/admin/roles/:id', getAdminRole, (request) => roles.get(request.params.id));

  app.patch('/v1/admin/roles/:id', updateAdminRole, async (request, reply) => {
    await roles.update(actorOf(request), request.params.id, request.body);
    return reply.code(204).send(null);
  });

  app.put('/v1/admin/roles/:id/permissions', setAdminRolePermissions, async (request, reply) => {
    await roles.setPermissions(actorOf(request), request.params.id, request.body.keys);
    return reply.code(204).send(null);
  });

  app.delete('/v1/admin/roles/:id', deleteAdminRole, async (request, reply) => {
    await roles.delete(actorOf(request), request.params.id, request.query.reason);
    return reply.code(204).send(null);
  });
}

/** The permission catalogue, and roles given to many users at once. */
export function registerRoleAssignmentRoutes(app: ZodApp, deps: Deps<'db' | 'permissions' | 'write'>): void {
  const roles = new RolesService(deps.db, deps.write, deps.permissions);

  app.get('/v1/admin/permissions', listAdminPermissions, () => roles.catalog());

  app.post('/v1/admin/users/bulk/roles', bulkAssignAdminUserRoles, (request) =>
    roles.bulkAssign(actorOf(request), request.body),
  );
}
