import type { AreaModule } from '../../kernel/areas/module.js';
import { expireStorageUploadsJob, sweepOrphanObjectsJob } from './cleanup.js';
import { registerStorageRoutes } from './routes.js';

/** Storage: avatars, staff browsing of stored objects, and the local store. */
export const storageModule = {
  name: 'storage',
  routes: [registerStorageRoutes],
  jobs: {
    'expire-storage-uploads': expireStorageUploadsJob,
    'sweep-orphan-objects': sweepOrphanObjectsJob,
  },
  permissions: {
    'storage.read': 'Browse stored objects.',
    'storage.write': 'Delete stored objects.',
  },
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
