import { defineArea } from '../../../composition/platform.js';
import { registerEmailSuppressionRoutes, registerEmailUnsubscribeRoutes } from './routes.js';

/** Unsubscribe: the mailed unsubscribe links, and the suppression list. */
export const emailUnsubscribeModule = defineArea(['db', 'signingKey', 'write'], {
  name: 'email/unsubscribe',
  routes: [registerEmailUnsubscribeRoutes, registerEmailSuppressionRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
