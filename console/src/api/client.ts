import { createPlatformClient } from '@platform-api/sdk';
import { sessionStore } from './session';

/** The API of the service that serves the console: the same origin, so no CORS and one CSP source. */
export const api = createPlatformClient({
  baseUrl: globalThis.location?.origin ?? 'http://127.0.0.1',
  token: () => sessionStore.accessToken(),
});

/** A token the service no longer takes ends the session: the shell then shows sign-in. */
api.use({
  onResponse({ response }) {
    if (response.status === 401) sessionStore.end();
    return undefined;
  },
});
