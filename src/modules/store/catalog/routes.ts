import { z } from 'zod';
import { idResult } from '../../../kernel/answers.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import {
  achievementBody,
  achievementIdParams,
  achievementsPage,
  createAchievementBody,
  deleteAchievementQuery,
  listAchievementsQuery,
  putReferralRulesBody,
  referralRulesBody,
  updateAchievementBody,
} from './schemas.js';
import { AchievementsService, ReferralRulesService } from './service.js';

const noContent = { 204: z.null().describe('Done') };
const tags = ['catalog'];

export function registerCatalogRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const achievements = new AchievementsService(deps.db, deps.write);
  const referralRules = new ReferralRulesService(deps.db, deps.write);

  app.get(
    '/v1/admin/catalog/achievements',
    {
      config: { perms: ['content.read'] },
      schema: {
        operationId: 'listCatalogAchievements',
        tags,
        summary: 'List achievement definitions',
        description:
          'Paged. `q` matches key or name (case-insensitive); `sort` by `sort_order` (default, ascending), `name` ' +
          'or `created_at`; `is_active` filters.',
        querystring: listAchievementsQuery,
        response: { 200: achievementsPage },
      },
    },
    (request) => achievements.list(request.query),
  );

  app.post(
    '/v1/admin/catalog/achievements',
    {
      config: { perms: ['content.write'], errors: { 409: ['conflict'] } },
      schema: {
        operationId: 'createCatalogAchievement',
        tags,
        summary: 'Create an achievement definition',
        description:
          "Fields and bounds of the spec's achievement definition; `reward_credits`, `is_active` and `sort_order` " +
          'default to 0, true and 0. A taken `key` is 409 `conflict` (`details.key`). Audited.',
        body: createAchievementBody,
        response: { 201: idResult },
      },
    },
    async (request, reply) => reply.code(201).send(await achievements.create(actorOf(request), request.body)),
  );

  app.get(
    '/v1/admin/catalog/achievements/:id',
    {
      config: { perms: ['content.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getCatalogAchievement',
        tags,
        summary: 'Get an achievement definition',
        description: '404 `not_found` for an unknown id.',
        params: achievementIdParams,
        response: { 200: achievementBody },
      },
    },
    (request) => achievements.get(request.params.id),
  );

  app.patch(
    '/v1/admin/catalog/achievements/:id',
    {
      config: { perms: ['content.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'updateCatalogAchievement',
        tags,
        summary: 'Update an achievement definition',
        description:
          'Any of `name`, `description`, `icon_path`, `reward_credits`, `is_active`, `sort_order`; at least one. ' +
          'Omitted fields keep their value; `null` clears `description` or `icon_path`. `key` cannot change ' +
          '(400). 404 `not_found` for an unknown id. Audited with the changed fields before and after; a body ' +
          'that changes nothing writes nothing.',
        params: achievementIdParams,
        body: updateAchievementBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await achievements.update(actorOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/admin/catalog/achievements/:id',
    {
      config: { perms: ['content.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'deleteCatalogAchievement',
        tags,
        summary: 'Delete an achievement definition',
        description:
          '404 `not_found` for an unknown id. Audited with the deleted definition and the optional `reason`.',
        params: achievementIdParams,
        querystring: deleteAchievementQuery,
        response: noContent,
      },
    },
    async (request, reply) => {
      await achievements.delete(actorOf(request), request.params.id, request.query.reason);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/admin/catalog/referral-rules',
    {
      config: { perms: ['content.read'] },
      schema: {
        operationId: 'getCatalogReferralRules',
        tags,
        summary: 'The referral ruleset',
        description: 'One ruleset for the whole platform, with its `version` (0 until first saved).',
        response: { 200: referralRulesBody },
      },
    },
    () => referralRules.get(),
  );

  app.put(
    '/v1/admin/catalog/referral-rules',
    {
      config: { perms: ['content.write'], errors: { 409: ['conflict'], 422: ['invalid_request'] } },
      schema: {
        operationId: 'setCatalogReferralRules',
        tags,
        summary: 'Replace the referral ruleset',
        description:
          'Replaces the whole ruleset and answers it with its new `version`. Rewards 0 to 1000000 credits; ' +
          '`qualify_within_days` 1 to 365 and `max_rewards_per_referrer` 1 to 1000000, null (the default) meaning ' +
          'no limit. 422 `invalid_request` when an active programme rewards nobody; 409 `conflict` ' +
          '(`details.current_version`) when `expected_version` is not the stored version. Audited with the ' +
          'changed fields; a body that changes nothing writes nothing.',
        body: putReferralRulesBody,
        response: { 200: referralRulesBody },
      },
    },
    (request) => referralRules.replace(actorOf(request), request.body),
  );
}
