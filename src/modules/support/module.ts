import { defineArea } from '../../composition/platform.js';
import { registerMySupportRoutes, registerSupportDeskRoutes } from './routes.js';

/** Support: tickets players open and staff answer. */
export const supportModule = defineArea(['db', 'storage', 'write'], {
  name: 'support',
  routes: [registerMySupportRoutes, registerSupportDeskRoutes],
  tags: {
    'me: support': "The caller's support tickets and attachments.",
    support: 'Support tickets for staff: read, reply, close, reopen.',
  },
  jobs: {},
  permissions: {
    'support.read': 'Read support messages.',
    'support.write': 'Answer and close support messages.',
  },
  cacheTopics: [],
  events: [
    'support.ticket_opened',
    'support.ticket_message_added',
    'support.ticket_replied',
    'support.ticket_closed',
    'support.ticket_reopened',
  ],
});
