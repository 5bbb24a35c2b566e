import { defineArea } from '../../../composition/platform.js';
import { registerEmailDeliveryRoutes } from './routes.js';

/** Email delivery: the outbox, and this instance's mail dispatcher. */
export const emailDeliveryModule = defineArea(['config', 'db', 'log', 'mail', 'metrics', 'signingKey', 'write'], {
  name: 'email/delivery',
  routes: [registerEmailDeliveryRoutes],
  tags: {
    'email outbox': 'Every outbound email: state, content and retries.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
