import { defineArea } from '../../composition/platform.js';
import { purgeDeletedAccountsJob } from './purge.js';
import { registerAccountDeletionRoutes } from './routes.js';

/** Account deletion: a player's own deletion, staff's restore in the grace period, and the purge after it. */
export const accountDeletionModule = defineArea(['db', 'identity', 'log', 'payments', 'signingKey', 'write'], {
  name: 'account-deletion',
  routes: [registerAccountDeletionRoutes],
  tags: {
    'me: account': 'Deleting your own account, confirmed by a code sent by email.',
  },
  jobs: {
    'purge-deleted-accounts': purgeDeletedAccountsJob,
  },
  permissions: {},
  cacheTopics: [],
  events: ['users.soft_deleted', 'users.restored'],
});
