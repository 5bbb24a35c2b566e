import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerEmailUnsubscribeRoutes } from './routes.js';

/** Unsubscribe: the mailed unsubscribe links, and the suppression list. */
export const emailUnsubscribeModule = {
  name: 'email/unsubscribe',
  routes: [registerEmailUnsubscribeRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
