import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { consoleConfig, consoleSession, consoleSignInBody } from './schemas.js';
import { ConsoleService, INVALID_SIGN_IN_CODE } from './service.js';

const tags = ['console'];

/** The staff console's own calls: open (it has no token yet), outside /v1/public so no maintenance level refuses them. */
export function registerConsoleRoutes(app: ZodApp, deps: Deps<'config' | 'devSignIn'>): void {
  const service = new ConsoleService(deps.config, deps.devSignIn);

  app.get(
    '/v1/console/config',
    {
      schema: {
        operationId: 'getConsoleConfig',
        tags,
        summary: 'What the staff console needs at start',
        description:
          'How staff sign in: `dev_link` in the embedded development mode (a one-time link printed by `serve`), ' +
          '`gotrue` with the URL and public anon key of the identity provider when `CONSOLE_GOTRUE_URL` and ' +
          '`CONSOLE_GOTRUE_ANON_KEY` are set, else `token` (paste an access token); and settings of the console: ' +
          '`credits.confirmAbove` (`CONSOLE_CREDIT_CONFIRM_ABOVE`). No token needed.',
        response: { 200: consoleConfig },
      },
    },
    () => service.consoleConfig(),
  );

  app.post(
    '/v1/console/sign-in',
    {
      config: { rateLimit: 'consoleSignIn', errors: { 401: [INVALID_SIGN_IN_CODE], 404: ['not_found'] } },
      schema: {
        operationId: 'signInToConsole',
        tags,
        summary: 'Exchange a printed sign-in code for a token',
        description:
          "The embedded development mode only (the config's `signIn.method` is `dev_link`; elsewhere 404 " +
          '`not_found`). `code` is the part after `#code=` of the link `serve` prints: single-use, valid 10 ' +
          'minutes. Answers an access token of the development owner, valid 12 h. An unknown, used or expired ' +
          `code is 401 \`${INVALID_SIGN_IN_CODE}\`; the code is never logged or echoed.`,
        body: consoleSignInBody,
        response: { 200: consoleSession },
      },
    },
    (request) => service.signIn(request.body.code),
  );
}
