import { defineArea } from '../../composition/platform.js';
import { registerAuditRoutes } from './routes.js';

/** Audit: the audit log, for staff. */
export const auditModule = defineArea(['db'], {
  name: 'audit',
  routes: [registerAuditRoutes],
  tags: {
    audit: 'The audit log: every staff write, with who, what, before and after.',
  },
  jobs: {},
  permissions: {
    'audit.read': 'Read the audit log.',
  },
  cacheTopics: [],
  events: [],
});
