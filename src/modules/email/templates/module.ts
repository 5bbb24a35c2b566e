import { defineArea } from '../../../composition/platform.js';
import { registerEmailTemplateRoutes, registerEmailTemplateVersionRoutes } from './routes.js';

/** Email templates: versioned templates, published and unpublished. */
export const emailTemplatesModule = defineArea(['config', 'db', 'write'], {
  name: 'email/templates',
  routes: [registerEmailTemplateRoutes, registerEmailTemplateVersionRoutes],
  tags: {
    'email templates': 'Email templates with versions, publishing and previews.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
