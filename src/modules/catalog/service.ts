import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import { editAudited } from '../../kernel/audited-edit.js';
import { conflict, invalidRequest, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { isUniqueViolation } from '../../lib/sql-errors.js';
import {
  deleteAchievement,
  findAchievement,
  insertAchievement,
  listAchievements,
  lockReferralRules,
  readReferralRules,
  saveReferralRules,
  type ReferralRulesValues,
} from './queries.js';
import {
  ACHIEVEMENT_FIELDS,
  type AchievementView,
  type CreateAchievementInput,
  type ListAchievementsQuery,
  type PutReferralRulesInput,
  type ReferralRulesView,
  type UpdateAchievementInput,
} from './schemas.js';

/**
 * The fields a write really changes, as audit before/after pictures (`undefined` = not sent;
 * `null` is a value that clears). A write that changes nothing stores nothing and audits
 * nothing, so idempotent consoles and scripts add no noise.
 */
function diff<T extends object, K extends keyof T>(current: T, wanted: Partial<Pick<T, K>>, fields: readonly K[]) {
  const before: Partial<Pick<T, K>> = {};
  const after: Partial<Pick<T, K>> = {};
  for (const field of fields) {
    const value = wanted[field];
    if (value === undefined || value === current[field]) continue;
    before[field] = current[field];
    after[field] = value;
  }
  return { before, after, changed: Object.keys(after).length > 0 };
}

export class AchievementsService {
  constructor(private readonly db: Kysely<Tables>) {}

  async list(query: ListAchievementsQuery) {
    const { rows, total } = await listAchievements(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string): Promise<AchievementView> {
    const achievement = await findAchievement(this.db, id);
    if (achievement === undefined) throw notFound();
    return achievement;
  }

  async create(actor: Actor, input: CreateAchievementInput): Promise<{ id: string }> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await insertAchievement(trx, input, actor.userId);
        await recordAudit(trx, actor, {
          action: 'catalog.achievement.create',
          targetType: 'achievement',
          targetId: row.id,
          after: {
            key: row.key,
            name: row.name,
            reward_credits: row.reward_credits,
            is_active: row.is_active,
            sort_order: row.sort_order,
          },
        });
        return { id: row.id };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict({ reason: 'achievement key taken', key: input.key });
      throw error;
    }
  }

  /** Operation 1: omitted fields keep their value; `null` clears description and icon_path. */
  async update(actor: Actor, id: string, input: UpdateAchievementInput): Promise<void> {
    const outcome = await editAudited(this.db, actor, {
      table: 'catalog_achievements',
      id,
      fields: ACHIEVEMENT_FIELDS,
      wanted: input,
      stamp: { updated_by: actor.userId, updated_at: new Date() },
      summaryColumns: ['key'],
      audit: { action: 'catalog.achievement.update', targetType: 'achievement' },
    });
    if (outcome === 'missing') throw notFound();
  }

  async delete(actor: Actor, id: string, reason: string | undefined): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const removed = await deleteAchievement(trx, id);
      if (removed === undefined) throw notFound();
      const { key, name, description, icon_path, reward_credits, is_active, sort_order } = removed;
      await recordAudit(trx, actor, {
        action: 'catalog.achievement.delete',
        targetType: 'achievement',
        targetId: id,
        reason,
        before: { key, name, description, icon_path, reward_credits, is_active, sort_order },
      });
    });
  }
}

const REFERRAL_FIELDS = [
  'referrer_reward_credits',
  'referee_reward_credits',
  'qualifying_event',
  'qualify_within_days',
  'max_rewards_per_referrer',
  'is_active',
] as const;

export class ReferralRulesService {
  constructor(private readonly db: Kysely<Tables>) {}

  get(): Promise<ReferralRulesView> {
    return readReferralRules(this.db);
  }

  /**
   * Replaces the ruleset. An active programme must reward someone (422), and a change based on
   * an older `version` than the stored one is refused (409) instead of silently overwriting it.
   */
  async replace(actor: Actor, input: PutReferralRulesInput): Promise<ReferralRulesView> {
    const { expected_version: expectedVersion, ...values } = input;
    if (values.is_active && values.referrer_reward_credits === 0 && values.referee_reward_credits === 0) {
      throw invalidRequest({ reason: 'an active referral programme must reward the referrer or the referee' });
    }
    return this.db.transaction().execute(async (trx) => {
      const current = await lockReferralRules(trx);
      if (expectedVersion !== undefined && expectedVersion !== current.version) {
        throw conflict({ reason: 'referral rules changed since they were read', current_version: current.version });
      }
      const { before, after, changed } = diff<ReferralRulesView, (typeof REFERRAL_FIELDS)[number]>(
        current,
        values,
        REFERRAL_FIELDS,
      );
      if (!changed) return current;
      const saved = await saveReferralRules(trx, values as ReferralRulesValues, actor.userId);
      await recordAudit(trx, actor, {
        action: 'catalog.referral_rules.update',
        targetType: 'referral_rules',
        targetId: 'referral_rules',
        before,
        after,
        extra: { version: saved.version },
      });
      return saved;
    });
  }
}
