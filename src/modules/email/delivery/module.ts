import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerEmailDeliveryRoutes } from './routes.js';

/** Email delivery: the outbox, and this instance's mail dispatcher. */
export const emailDeliveryModule = {
  name: 'email/delivery',
  routes: [registerEmailDeliveryRoutes],
  tags: {
    'email outbox': 'Every outbound email: state, content and retries.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
