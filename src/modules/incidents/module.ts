import type { AreaModule } from '../../kernel/module.js';
import { registerIncidentRoutes } from './routes.js';

/** Incidents: the rules of the incident monitor, and the history of level changes. */
export const incidentsModule = {
  name: 'incidents',
  routes: [registerIncidentRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['ops.incident_rules_updated'],
} satisfies AreaModule;
