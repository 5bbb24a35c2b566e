import type { AreaModule } from '../../kernel/areas/module.js';
import { registerCatalogRoutes } from './routes.js';

/** Catalog: achievements and referral rules. */
export const catalogModule = {
  name: 'catalog',
  routes: [registerCatalogRoutes],
  tags: {
    catalog: 'Achievement definitions and the referral ruleset.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
