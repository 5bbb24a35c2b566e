import { defineArea } from '../../../composition/platform.js';
import { registerEmailAudienceMemberRoutes, registerEmailAudienceRoutes } from './routes.js';

/** Email audiences: lists of recipients. */
export const emailAudiencesModule = defineArea(['db', 'write'], {
  name: 'email/audiences',
  routes: [registerEmailAudienceRoutes, registerEmailAudienceMemberRoutes],
  tags: {
    email: 'Email audiences and their members, suppressions, the waitlist and unsubscribing.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
