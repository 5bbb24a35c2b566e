import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type {
  AchievementView,
  CreateAchievementInput,
  ListAchievementsQuery,
  PutReferralRulesInput,
} from './schemas.js';
import './tables.js';

const ACHIEVEMENT_COLUMNS = [
  'id',
  'key',
  'name',
  'description',
  'icon_path',
  'reward_credits',
  'is_active',
  'sort_order',
  'created_by',
  'updated_by',
  'created_at',
  'updated_at',
] as const;

export async function listAchievements(
  db: Kysely<Tables>,
  query: ListAchievementsQuery,
): Promise<{ rows: AchievementView[]; total: number }> {
  let filtered = db.selectFrom('catalog_achievements');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('key', 'ilike', pattern), eb('name', 'ilike', pattern)]));
  }
  if (query.is_active !== undefined) filtered = filtered.where('is_active', '=', query.is_active);
  return readPage(filtered, query, (matching) =>
    matching
      .select(ACHIEVEMENT_COLUMNS)
      .orderBy(query.sort.field, query.sort.direction)
      // Ties (equal sort_order, names) fall back to name then id, so pages never overlap.
      .orderBy('name')
      .orderBy('id'),
  );
}

export function findAchievement(db: Kysely<Tables>, id: string): Promise<AchievementView | undefined> {
  return db.selectFrom('catalog_achievements').select(ACHIEVEMENT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function insertAchievement(
  trx: Kysely<Tables>,
  input: CreateAchievementInput,
  actorId: string,
): Promise<AchievementView> {
  return trx
    .insertInto('catalog_achievements')
    .values({
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      icon_path: input.icon_path ?? null,
      reward_credits: input.reward_credits,
      is_active: input.is_active,
      sort_order: input.sort_order,
      created_by: actorId,
      updated_by: actorId,
    })
    .returning(ACHIEVEMENT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function deleteAchievement(trx: Kysely<Tables>, id: string): Promise<AchievementView | undefined> {
  return trx.deleteFrom('catalog_achievements').where('id', '=', id).returning(ACHIEVEMENT_COLUMNS).executeTakeFirst();
}

// ---- Referral rules (one row) ----

const REFERRAL_COLUMNS = [
  'referrer_reward_credits',
  'referee_reward_credits',
  'qualifying_event',
  'qualify_within_days',
  'max_rewards_per_referrer',
  'is_active',
  'version',
  'updated_by',
  'updated_at',
] as const;

export function readReferralRules(db: Kysely<Tables>) {
  return db.selectFrom('catalog_referral_rules').select(REFERRAL_COLUMNS).executeTakeFirstOrThrow();
}

export function lockReferralRules(trx: Kysely<Tables>) {
  return trx.selectFrom('catalog_referral_rules').select(REFERRAL_COLUMNS).forUpdate().executeTakeFirstOrThrow();
}

export type ReferralRulesValues = Omit<PutReferralRulesInput, 'expected_version'>;

export function saveReferralRules(trx: Kysely<Tables>, values: ReferralRulesValues, actorId: string) {
  return trx
    .updateTable('catalog_referral_rules')
    .set((eb) => ({ ...values, version: eb('version', '+', 1), updated_by: actorId, updated_at: new Date() }))
    .returning(REFERRAL_COLUMNS)
    .executeTakeFirstOrThrow();
}
