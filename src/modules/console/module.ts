import { defineArea } from '../../composition/platform.js';
import { registerConsoleFiles } from './app-files.js';
import { registerConsoleRoutes } from './routes.js';

/** The staff console: its built app at /admin, and the calls it makes before it has a token. */
export const consoleModule = defineArea(['config', 'devSignIn'], {
  name: 'console',
  routes: [registerConsoleRoutes, registerConsoleFiles],
  tags: {
    console:
      'What the staff console at `/admin` asks before it has a token: its settings, and the development sign-in.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
