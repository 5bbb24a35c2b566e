import { defineArea } from '../../composition/platform.js';
import { purgeDeviceAuthorizationsJob } from './cleanup.js';
import { registerDeviceFlowRoutes, registerMyDevicesRoutes } from './routes.js';

/** Device authorization: the launcher's sign-in (RFC 8628) and the player's devices. */
export const deviceAuthorizationModule = defineArea(['config', 'db', 'write'], {
  name: 'device-authorization',
  routes: [registerDeviceFlowRoutes, registerMyDevicesRoutes],
  tags: {
    'me: devices': 'Approving and revoking devices (launchers) signed in with a device code.',
    'device authorization': 'The device authorization grant (RFC 8628) for launchers: start and poll.',
  },
  jobs: {
    'purge-device-authorizations': purgeDeviceAuthorizationsJob,
  },
  permissions: {},
  cacheTopics: [],
  events: [],
});
