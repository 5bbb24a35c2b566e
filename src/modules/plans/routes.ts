import { z } from 'zod';
import { idResult } from '../../kernel/answers.js';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import {
  listRulesetsQuery,
  listTiersQuery,
  rulesetsBody,
  tiersBody,
  upsertRulesetBody,
  upsertTierBody,
} from './schemas.js';
import { PlansService } from './service.js';

const tags = ['plans'];

export function registerPlansRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const plans = new PlansService(deps.db, deps.write);

  app.get(
    '/v1/admin/plans/rulesets',
    {
      config: { perms: ['plans.read'] },
      schema: {
        operationId: 'listPlanRulesets',
        tags,
        summary: 'List plan rulesets',
        description: 'Every ruleset (a small set, not paged), ordered by key, with the number of tiers using each.',
        querystring: listRulesetsQuery,
        response: { 200: rulesetsBody },
      },
    },
    (request) => plans.listRulesets(request.query),
  );

  app.put(
    '/v1/admin/plans/rulesets',
    {
      config: { perms: ['plans.write'] },
      schema: {
        operationId: 'upsertPlanRuleset',
        tags,
        summary: 'Create or replace a ruleset',
        description:
          'Upsert by `key`: a new key creates the ruleset, an existing one is replaced as a whole (omitted ' +
          '`description` clears it, omitted `limits` becomes `{}`, omitted `isActive` true). Answers the ' +
          "ruleset's `id`, the same on every upsert of the key. Audited with the changed fields; an upsert that " +
          'changes nothing writes nothing.',
        body: upsertRulesetBody,
        response: { 200: idResult },
      },
    },
    (request) => plans.upsertRuleset(actorOf(request), request.body),
  );

  app.get(
    '/v1/admin/plans/tiers',
    {
      config: { perms: ['plans.read'] },
      schema: {
        operationId: 'listPlanTiers',
        tags,
        summary: 'List plan tiers',
        description:
          "Every tier (a small set, not paged), ordered by `rank` then key, each with its ruleset's key; " +
          '`rulesetKey` filters.',
        querystring: listTiersQuery,
        response: { 200: tiersBody },
      },
    },
    (request) => plans.listTiers(request.query),
  );

  app.put(
    '/v1/admin/plans/tiers',
    {
      config: { perms: ['plans.write'], errors: { 422: ['invalid_request'] } },
      schema: {
        operationId: 'upsertPlanTier',
        tags,
        summary: 'Create or replace a tier',
        description:
          'Upsert by `key`; an existing tier is replaced as a whole (omitted `description` clears it). ' +
          '`rulesetKey` must name an existing ruleset: 422 `invalid_request` with `details.rulesetKey` otherwise. ' +
          'Audited with the changed fields; an upsert that changes nothing writes nothing.',
        body: upsertTierBody,
        response: { 204: z.null().describe('Done') },
      },
    },
    async (request, reply) => {
      await plans.upsertTier(actorOf(request), request.body);
      return reply.code(204).send(null);
    },
  );
}
