import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerEmailAudienceRoutes } from './routes.js';

/** Email audiences: lists of recipients. */
export const emailAudiencesModule = {
  name: 'email/audiences',
  routes: [registerEmailAudienceRoutes],
  tags: {
    email: 'Email audiences and their members, suppressions, the waitlist and unsubscribing.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
