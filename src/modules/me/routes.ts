import { actorOf } from '../../kernel/auth.js';
import { notFound } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { ZodApp } from '../../kernel/zod-app.js';
import { findProfile, listActiveRoleGrants } from './queries.js';
import { permissionsBody, profileBody } from './schemas.js';

export function registerMeRoutes(app: ZodApp, kernel: Kernel): void {
  app.get('/v1/me', {
    schema: { tags: ['me'], summary: "The caller's profile", response: { 200: profileBody } },
  }, async (request) => {
    const profile = await findProfile(kernel.db, actorOf(request).userId);
    if (profile === undefined) throw notFound();
    return profile;
  });

  app.get('/v1/me/permissions', {
    schema: { tags: ['me'], summary: "The caller's effective permissions", response: { 200: permissionsBody } },
  }, async (request) => {
    const actor = actorOf(request);
    return { permissions: actor.permissions.effectiveKeys(), roles: await listActiveRoleGrants(kernel.db, actor.userId) };
  });
}
