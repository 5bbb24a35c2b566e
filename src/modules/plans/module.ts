import { defineArea } from '../../composition/platform.js';
import { registerPlansRoutes } from './routes.js';

/** Plans: tiers and rulesets. */
export const plansModule = defineArea(['db', 'write'], {
  name: 'plans',
  routes: [registerPlansRoutes],
  tags: {
    plans: 'Plan rulesets and tiers, billing products and their prices, and subscriber migration.',
  },
  jobs: {},
  permissions: {
    'plans.read': 'Read plans, tiers and rulesets.',
    'plans.write': 'Edit plans, tiers and rulesets; migrate subscribers between prices.',
  },
  cacheTopics: [],
  events: [],
});
