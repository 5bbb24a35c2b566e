import { z } from 'zod';

export const devLinkSignIn = z
  .object({ method: z.literal('dev_link') })
  .describe(
    'The embedded development mode: `serve` prints a one-time link (`<base>/admin/sign-in#code=<code>`) that the ' +
      'console exchanges at `POST /v1/console/sign-in`.',
  );
export const gotrueSignIn = z
  .object({
    method: z.literal('gotrue'),
    url: z.string().describe("GoTrue's base URL as the browser reaches it (`CONSOLE_GOTRUE_URL`)."),
    anonKey: z.string().describe("GoTrue's public anon key (`CONSOLE_GOTRUE_ANON_KEY`), sent as its `apikey`."),
  })
  .describe('Staff sign in at the identity provider the service trusts, with a password or a magic link.');
export const tokenSignIn = z
  .object({ method: z.literal('token') })
  .describe('No sign-in is configured for the console: staff paste an access token.');

export const consoleCreditSettings = z
  .object({
    confirmAbove: z
      .number()
      .int()
      .min(0)
      .describe(
        'A grant of more credits than this asks the staff member to confirm it, naming the amount and the player ' +
          '(`CONSOLE_CREDIT_CONFIRM_ABOVE`, default 500). The service itself grants any allowed amount.',
      ),
  })
  .describe('How the console grants credits.');

export const consoleConfig = z
  .object({
    signIn: z.discriminatedUnion('method', [devLinkSignIn, gotrueSignIn, tokenSignIn]),
    credits: consoleCreditSettings,
  })
  .meta({ id: 'ConsoleConfig', description: 'What the staff console needs to know at start.' });
export type ConsoleConfig = z.infer<typeof consoleConfig>;

export const consoleSignInBody = z
  .object({
    code: z.string().min(1).max(200).describe('The code of the printed link (after `#code=`).'),
  })
  .strict();

export const consoleSession = z
  .object({
    accessToken: z.string().describe("The development owner's access token: send it as `Authorization: Bearer`."),
    tokenType: z.literal('Bearer'),
    expiresAt: z.date().describe('When the token expires (12 h after the exchange); sign in again after it.'),
  })
  .meta({ id: 'ConsoleSession', description: 'A signed-in console session.' });
export type ConsoleSession = z.infer<typeof consoleSession>;
