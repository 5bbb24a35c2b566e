import { defineArea } from '../../composition/platform.js';
import { registerUserLifecycleRoutes, registerUserRoutes } from './routes.js';

/** Users: staff administration of accounts (list, view, ban, sign out, delete). */
export const usersModule = defineArea(['db', 'identity', 'log', 'write'], {
  name: 'users',
  routes: [registerUserRoutes, registerUserLifecycleRoutes],
  tags: {
    users: 'Player and staff accounts: search and segment, edit, ban, sign out, delete and restore.',
  },
  jobs: {},
  permissions: {
    'users.read': 'List and view user accounts.',
    'users.write': 'Change user accounts: ban, unban, sign out, edit profile fields.',
    'users.delete': 'Soft- or hard-delete user accounts.',
  },
  cacheTopics: [],
  events: ['users.banned', 'users.unbanned', 'users.soft_deleted', 'users.hard_deleted'],
});
