import { defineArea } from '../../composition/platform.js';
import { expireStorageUploadsJob, sweepOrphanObjectsJob } from './cleanup.js';
import { registerStorageRoutes } from './routes.js';

/** Storage: avatars, staff browsing of stored objects, and the local store. */
export const storageModule = defineArea(['db', 'log', 'storage', 'write'], {
  name: 'files',
  routes: [registerStorageRoutes],
  tags: {
    'me: avatar': 'Uploading and setting your avatar.',
    storage: 'Stored objects: browse and delete.',
    'storage (local store)': 'Signed upload and download URLs of the embedded object store (S3 in production).',
  },
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
});
