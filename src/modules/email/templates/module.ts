import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerEmailTemplateRoutes } from './routes.js';

/** Email templates: versioned templates, published and unpublished. */
export const emailTemplatesModule = {
  name: 'email/templates',
  routes: [registerEmailTemplateRoutes],
  tags: {
    'email templates': 'Email templates with versions, publishing and previews.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
