import { defineArea } from '../../composition/platform.js';
import { registerRuntimeNodeRoutes, registerRuntimePoolRoutes } from './routes.js';

/** Runtime: staff administration of runtime nodes and pools. */
export const runtimeModule = defineArea(['runtime', 'write'], {
  name: 'runtime',
  routes: [registerRuntimeNodeRoutes, registerRuntimePoolRoutes],
  tags: {
    runtime: 'Runtime nodes and pools: images, draining, pool membership.',
  },
  jobs: {},
  permissions: {
    'runtime.read': 'Read runtime nodes, pools and game sessions.',
    'runtime.write': 'Operate runtime nodes and pools.',
  },
  cacheTopics: [],
  events: [],
});
