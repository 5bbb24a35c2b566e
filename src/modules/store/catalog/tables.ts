import type { Generated, Selectable } from 'kysely';
import type { DefaultedTimestamp, Timestamp } from '../../../db/column-types.js';

export type QualifyingEvent = 'signup' | 'first_purchase';

export interface CatalogAchievementsTable {
  id: Generated<string>;
  key: string;
  name: string;
  description: string | null;
  icon_path: string | null;
  reward_credits: Generated<number>;
  is_active: Generated<boolean>;
  sort_order: Generated<number>;
  created_by: string | null;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface CatalogReferralRulesTable {
  singleton: Generated<boolean>;
  referrer_reward_credits: number;
  referee_reward_credits: number;
  qualifying_event: QualifyingEvent;
  qualify_within_days: number | null;
  max_rewards_per_referrer: number | null;
  is_active: boolean;
  version: Generated<number>;
  updated_by: string | null;
  updated_at: Timestamp | null;
}

declare module '../../../db/tables.js' {
  interface Tables {
    catalog_achievements: CatalogAchievementsTable;
    catalog_referral_rules: CatalogReferralRulesTable;
  }
}

export type AchievementRow = Selectable<CatalogAchievementsTable>;
export type ReferralRulesRow = Selectable<CatalogReferralRulesTable>;
