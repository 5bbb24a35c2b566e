import { defineArea } from '../../../composition/platform.js';
import { registerIncidentRoutes } from './routes.js';

// The composition root makes this instance's monitor and runs it (`platform.incidents`).
export { IncidentMonitor } from './monitor.js';

/** Incidents: the incident monitor, its rules, and the history of level changes. */
export const incidentsModule = defineArea(['db', 'incidents', 'write'], {
  name: 'operations/incidents',
  routes: [registerIncidentRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['ops.incident_rules_updated'],
});
