import { defineArea } from '../../composition/platform.js';
import { registerRoleAssignmentRoutes, registerRoleRoutes } from './routes.js';

/** Roles: staff roles, their permission keys, and grants of roles to users. */
export const rolesModule = defineArea(['db', 'permissions', 'write'], {
  name: 'roles',
  routes: [registerRoleRoutes, registerRoleAssignmentRoutes],
  tags: {
    roles: 'Roles, the permissions each grants, and the alerts each role hears; bulk role grants.',
  },
  jobs: {},
  permissions: {
    'roles.read': 'List roles, their permissions and the permission catalog.',
    'roles.write': 'Create, change and delete roles and their permission lists.',
    'roles.assign': 'Grant roles to users and revoke them.',
  },
  cacheTopics: [],
  events: ['roles.permissions_updated', 'roles.deleted', 'users.bulk_role_grant', 'users.bulk_role_revoke'],
});
