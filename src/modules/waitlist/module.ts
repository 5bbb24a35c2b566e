import type { AreaModule } from '../../kernel/areas/module.js';
import { registerWaitlistRoutes } from './routes.js';

/** Waitlist: public sign-ups, and the list for staff. */
export const waitlistModule = {
  name: 'waitlist',
  routes: [registerWaitlistRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
