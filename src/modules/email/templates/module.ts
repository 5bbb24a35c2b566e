import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerEmailTemplateRoutes } from './routes.js';

/** Email templates: versioned templates, published and unpublished. */
export const emailTemplatesModule = {
  name: 'email/templates',
  routes: [registerEmailTemplateRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
