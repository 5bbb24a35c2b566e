import { auditPicture } from '../../../kernel/audit.js';
import type { CatalogAchievementsTable, CatalogReferralRulesTable } from './tables.js';

/** What an achievement's audit rows keep: everything staff set. */
export const achievementPicture = auditPicture<CatalogAchievementsTable>({
  id: false,
  key: true,
  name: true,
  description: true,
  icon_path: true,
  reward_credits: true,
  is_active: true,
  sort_order: true,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});

/** What the referral ruleset's audit rows keep: the rules (its version goes to the row's extra). */
export const referralRulesPicture = auditPicture<CatalogReferralRulesTable>({
  singleton: false,
  referrer_reward_credits: true,
  referee_reward_credits: true,
  qualifying_event: true,
  qualify_within_days: true,
  max_rewards_per_referrer: true,
  is_active: true,
  version: false,
  updated_by: false,
  updated_at: false,
});
