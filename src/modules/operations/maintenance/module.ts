import { defineArea } from '../../../composition/platform.js';
import { PANIC_TOPIC } from '../../../kernel/maintenance.js';
import { registerOpsRoutes } from './routes.js';

/** Ops: the maintenance (panic) level, and the one way it changes (for staff and the incident monitor). */
export const opsModule = defineArea(['db', 'panic', 'write'], {
  name: 'operations/maintenance',
  routes: [registerOpsRoutes],
  tags: {
    ops: 'The maintenance (panic) level, the incident rules that set it automatically, and its history.',
    'me: staff': 'What every staff member may read, whatever their role: the maintenance level.',
  },
  jobs: {},
  permissions: {
    'ops.read': 'Read the maintenance (panic) level and operational state.',
    'ops.panic': 'Set the maintenance (panic) level.',
  },
  cacheTopics: [PANIC_TOPIC],
  events: ['panic_mode_changed', 'ops.panic_changed'],
});
