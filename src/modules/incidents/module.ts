import type { IncidentMonitoringParts } from '../../kernel/kernel.js';
import type { AreaModule } from '../../kernel/areas/module.js';
import { IncidentMonitor } from './monitor.js';
import { registerIncidentRoutes } from './routes.js';

export type { IncidentMonitor };

/** Incidents: the incident monitor, its rules, and the history of level changes. */
export const incidentsModule = {
  name: 'incidents',
  routes: [registerIncidentRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['ops.incident_rules_updated'],
} satisfies AreaModule;

/** This instance's incident monitor, which the kernel makes from its parts and runs (`kernel.incidents`). */
export function incidentMonitor(parts: IncidentMonitoringParts): IncidentMonitor {
  return new IncidentMonitor(parts);
}
