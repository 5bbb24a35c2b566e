import { defineArea } from '../../composition/platform.js';
import { registerWaitlistRoutes } from './routes.js';

/** Waitlist: public sign-ups, and the list for staff. */
export const waitlistModule = defineArea(['db'], {
  name: 'waitlist',
  routes: [registerWaitlistRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
