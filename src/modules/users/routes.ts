import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { UserLifecycleService } from './lifecycle.js';
import { UsersService } from './service.js';
import {
  banAdminUser,
  deleteAdminUser,
  getAdminUser,
  getAdminUserIdentity,
  listAdminUsers,
  signOutAdminUser,
  unbanAdminUser,
  updateAdminUser,
} from './route-options.js';

/** Staff's view of accounts: list, read, edit. */
export function registerUserRoutes(app: ZodApp, deps: Deps<'db' | 'identity' | 'log' | 'write'>): void {
  const users = new UsersService(deps.db, deps.write, deps.identity, deps.log);

  app.get('/v1/admin/users', listAdminUsers, (request) => users.list(request.query));

  app.get('/v1/admin/users/:id', getAdminUser, (request) => users.get(request.params.id));

  app.get('/v1/admin/users/:id/identity', getAdminUserIdentity, (request) =>
    users.identityAccount(request.params.id, request.id),
  );

  app.patch('/v1/admin/users/:id', updateAdminUser, (request) =>
    users.update(actorOf(request), request.params.id, request.body),
  );
}

/** An account's life: banned, unbanned, signed out everywhere, deleted. */
export function registerUserLifecycleRoutes(app: ZodApp, deps: Deps<'db' | 'identity' | 'log' | 'write'>): void {
  const lifecycle = new UserLifecycleService(deps.db, deps.identity, deps.write, deps.log);

  app.post('/v1/admin/users/:id/ban', banAdminUser, async (request, reply) => {
    await lifecycle.ban(actorOf(request), request.params.id, request.body.reason);
    return reply.code(204).send(null);
  });

  app.post('/v1/admin/users/:id/unban', unbanAdminUser, async (request, reply) => {
    await lifecycle.unban(actorOf(request), request.params.id, request.body.reason);
    return reply.code(204).send(null);
  });

  app.post('/v1/admin/users/:id/sign-out', signOutAdminUser, async (request, reply) => {
    await lifecycle.signOut(actorOf(request), request.params.id, request.body);
    return reply.code(204).send(null);
  });

  app.delete('/v1/admin/users/:id', deleteAdminUser, async (request, reply) => {
    await lifecycle.delete(actorOf(request), request.params.id, request.body);
    return reply.code(204).send(null);
  });
}
