import type { AreaModule } from '../../kernel/areas/module.js';
import { registerRuntimeRoutes } from './routes.js';

/** Runtime: staff administration of runtime nodes and pools. */
export const runtimeModule = {
  name: 'runtime',
  routes: [registerRuntimeRoutes],
  jobs: {},
  permissions: {
    'runtime.read': 'Read runtime nodes, pools and game sessions.',
    'runtime.write': 'Operate runtime nodes and pools.',
  },
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
