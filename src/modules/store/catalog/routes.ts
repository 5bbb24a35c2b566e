import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import {
  createCatalogAchievement,
  deleteCatalogAchievement,
  getCatalogAchievement,
  getCatalogReferralRules,
  listCatalogAchievements,
  setCatalogReferralRules,
  updateCatalogAchievement,
} from './route-options.js';
import { AchievementsService, ReferralRulesService } from './service.js';

/** GET|POST /v1/admin/catalog/achievements, GET|PATCH|DELETE /v1/admin/catalog/achievements/{id}. */
export function registerAchievementsRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const achievements = new AchievementsService(deps.db, deps.write);
  const path = '/v1/admin/catalog/achievements';

  app.get(path, listCatalogAchievements, (request) => achievements.list(request.query));

  app.post(path, createCatalogAchievement, async (request, reply) =>
    reply.code(201).send(await achievements.create(actorOf(request), request.body)),
  );

  app.get(`${path}/:id`, getCatalogAchievement, (request) => achievements.get(request.params.id));

  app.patch(`${path}/:id`, updateCatalogAchievement, async (request, reply) => {
    await achievements.update(actorOf(request), request.params.id, request.body);
    return reply.code(204).send(null);
  });

  app.delete(`${path}/:id`, deleteCatalogAchievement, async (request, reply) => {
    await achievements.delete(actorOf(request), request.params.id, request.query.reason);
    return reply.code(204).send(null);
  });
}

/** GET|PUT /v1/admin/catalog/referral-rules: the platform's one ruleset. */
export function registerReferralRulesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const referralRules = new ReferralRulesService(deps.db, deps.write);

  app.get('/v1/admin/catalog/referral-rules', getCatalogReferralRules, () => referralRules.get());

  app.put('/v1/admin/catalog/referral-rules', setCatalogReferralRules, (request) =>
    referralRules.replace(actorOf(request), request.body),
  );
}
