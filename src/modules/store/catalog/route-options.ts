// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { idResult } from '../../../kernel/answers.js';
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

const READ = { perms: ['content.read'] } as const;
const WRITE = { perms: ['content.write'] } as const;
const noContent = { 204: z.null().describe('Done') };
const tags = ['catalog'];

export const listCatalogAchievements = {
  config: READ,
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
} as const;

export const createCatalogAchievement = {
  config: { ...WRITE, errors: { 409: ['conflict'] } },
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
} as const;

export const getCatalogAchievement = {
  config: { ...READ, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getCatalogAchievement',
    tags,
    summary: 'Get an achievement definition',
    description: '404 `not_found` for an unknown id.',
    params: achievementIdParams,
    response: { 200: achievementBody },
  },
} as const;

export const updateCatalogAchievement = {
  config: { ...WRITE, errors: { 404: ['not_found'] } },
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
} as const;

export const deleteCatalogAchievement = {
  config: { ...WRITE, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'deleteCatalogAchievement',
    tags,
    summary: 'Delete an achievement definition',
    description: '404 `not_found` for an unknown id. Audited with the deleted definition and the optional `reason`.',
    params: achievementIdParams,
    querystring: deleteAchievementQuery,
    response: noContent,
  },
} as const;

export const getCatalogReferralRules = {
  config: READ,
  schema: {
    operationId: 'getCatalogReferralRules',
    tags,
    summary: 'The referral ruleset',
    description: 'One ruleset for the whole platform, with its `version` (0 until first saved).',
    response: { 200: referralRulesBody },
  },
} as const;

export const setCatalogReferralRules = {
  config: { ...WRITE, errors: { 409: ['conflict'], 422: ['invalid_request'] } },
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
} as const;
