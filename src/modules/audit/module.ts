import type { AreaModule } from '../../kernel/areas/module.js';
import { registerAuditRoutes } from './routes.js';

/** Audit: the audit log, for staff. */
export const auditModule = {
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
} satisfies AreaModule;
