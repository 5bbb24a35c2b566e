import { defineArea } from '../../../composition/platform.js';
import { registerAchievementsRoutes, registerReferralRulesRoutes } from './routes.js';

/** Catalog: achievements and referral rules. */
export const catalogModule = defineArea(['db', 'write'], {
  name: 'store/catalog',
  routes: [registerAchievementsRoutes, registerReferralRulesRoutes],
  tags: {
    catalog: 'Achievement definitions and the referral ruleset.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
