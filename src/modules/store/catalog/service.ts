import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalidRequest, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { isUniqueViolation } from '../../../lib/sql-errors.js';
import type { Writes } from '../../../kernel/write.js';
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
import { achievementPicture, referralRulesPicture } from './audit-picture.js';

export class AchievementsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

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
      return await this.write(actor, async (w) => {
        const row = await insertAchievement(w.trx, input, actor.userId);
        await w.auditRow(achievementPicture, {
          action: 'catalog.achievement.create',
          targetType: 'achievement',
          targetId: row.id,
          after: row,
          only: ['key', 'name', 'reward_credits', 'is_active', 'sort_order'],
        });
        return { id: row.id };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict({ reason: 'achievement key taken', key: input.key });
      throw error;
    }
  }

  /**
   * Operation 1: omitted fields keep their value; `null` clears description and icon_path. Only
   * the fields that change are written and audited; a body that changes nothing writes nothing.
   */
  async update(actor: Actor, id: string, input: UpdateAchievementInput): Promise<void> {
    const outcome = await this.write.editRow(actor, {
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
    await this.write(actor, async (w) => {
      const removed = await deleteAchievement(w.trx, id);
      if (removed === undefined) throw notFound();
      await w.auditRow(achievementPicture, {
        action: 'catalog.achievement.delete',
        targetType: 'achievement',
        targetId: id,
        reason,
        before: removed,
      });
    });
  }
}

export class ReferralRulesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  get(): Promise<ReferralRulesView> {
    return readReferralRules(this.db);
  }

  /**
   * Replaces the ruleset. An active programme must reward someone (422), and a change based on
   * an older `version` than the stored one is refused (409) instead of silently overwriting it.
   * A replacement that changes nothing stores and audits nothing.
   */
  async replace(actor: Actor, input: PutReferralRulesInput): Promise<ReferralRulesView> {
    const { expected_version: expectedVersion, ...values } = input;
    if (values.is_active && values.referrer_reward_credits === 0 && values.referee_reward_credits === 0) {
      throw invalidRequest({ reason: 'an active referral programme must reward the referrer or the referee' });
    }
    return this.write(actor, async (w) => {
      const current = await lockReferralRules(w.trx);
      if (expectedVersion !== undefined && expectedVersion !== current.version) {
        throw conflict({ reason: 'referral rules changed since they were read', current_version: current.version });
      }
      const { before, after, changed } = referralRulesPicture.changes(current, values);
      if (changed.length === 0) return current;
      const saved = await saveReferralRules(w.trx, values as ReferralRulesValues, actor.userId);
      await w.audit({
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
