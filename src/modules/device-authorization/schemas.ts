import { z } from 'zod';

/**
 * OAuth parameters arrive form-encoded or as JSON. Unknown parameters are ignored, not refused: RFC 6749 section 3.2
 * says a server MUST ignore ones it does not recognize.
 */
const clientId = z
  .string()
  .min(1)
  .max(64)
  .describe('The client: `launcher` (the game launcher) is the one known client.');
const scope = z
  .string()
  .max(200)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'space-separated scope tokens')
  .describe(
    'Optional, space-separated: recorded, shown to the player when they inspect the code and echoed in the token ' +
      'answer. It grants nothing beyond what a signed-in player may do.',
  );

export const deviceCodeBody = z.object({ client_id: clientId, scope: scope.optional() });
export type DeviceCodeInput = z.infer<typeof deviceCodeBody>;

export const deviceCodeResult = z
  .object({
    device_code: z
      .string()
      .describe("The launcher's secret for polling (43 characters, 32 random bytes); stored only hashed."),
    user_code: z
      .string()
      .describe('What the player types: 8 letters shown `XXXX-XXXX`, accepted in any case, with or without the dash.'),
    verification_uri: z
      .string()
      .describe("`<PUBLIC_BASE_URL>/device`: the site's page where a signed-in player enters the code."),
    verification_uri_complete: z
      .string()
      .describe('The same page with `?user_code=XXXX-XXXX` (for a QR code or a link).'),
    expires_in: z.number().int().describe('Seconds the codes live: 600.'),
    interval: z.number().int().describe('Seconds to wait between polls: 5.'),
  })
  .describe('The device code to poll with, and the user code to show (RFC 8628 section 3.2).');

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const tokenBody = z.object({
  grant_type: z
    .string()
    .min(1)
    .max(200)
    .describe(`\`${DEVICE_CODE_GRANT}\` (with \`device_code\`) or \`refresh_token\` (with \`refresh_token\`).`),
  client_id: clientId,
  device_code: z.string().min(1).max(200).optional(),
  refresh_token: z.string().min(1).max(200).optional(),
});
export type TokenInput = z.infer<typeof tokenBody>;

export const tokenResult = z
  .object({
    access_token: z
      .string()
      .describe(
        "An HS256 JWT like the identity provider's (`aud: authenticated`, `sub` = the player, a `session_id` of " +
          'this device).',
      ),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds the access token lives: 3600.'),
    refresh_token: z.string().describe('Opaque; one use: each refresh answers a new one and the old one dies.'),
    scope: z.string().optional().describe('The scope asked for, when one was.'),
  })
  .describe("The device's tokens (RFC 8628 section 3.5).");

export const oauthErrorBody = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  interval: z
    .number()
    .int()
    .optional()
    .describe('`slow_down` only: the seconds the client must now wait between polls.'),
});

export const approveBody = z
  .object({
    user_code: z.string().min(1).max(32).describe('As the player typed it: any case, with or without the dash.'),
    action: z
      .enum(['inspect', 'approve', 'deny'])
      .describe('`inspect` changes nothing; `approve` and `deny` are final.'),
  })
  .strict();
export type ApproveInput = z.infer<typeof approveBody>;

export const deviceRequestView = z
  .object({
    client_id: z.string(),
    client_name: z.string(),
    scope: z.string().nullable(),
    created_at: z.date(),
    expires_at: z.date(),
    ip: z.string().nullable().describe('The address the device asked from.'),
    user_agent: z.string().nullable().describe("The device's User-Agent."),
    status: z.enum(['pending', 'approved', 'denied']),
  })
  .meta({
    id: 'DeviceRequest',
    description: 'A device authorization request: which client asks, for what scope, and its state.',
  });
export type DeviceRequestView = z.infer<typeof deviceRequestView>;

export const approvedDeviceView = z.object({
  id: z.guid(),
  client_id: z.string(),
  client_name: z.string(),
  scope: z.string().nullable(),
  approved_at: z.date(),
  signed_in: z.boolean().describe('The device has exchanged its code for tokens (false: approved, not yet collected).'),
  last_used_at: z.date().nullable().describe('The last time it got tokens (code exchange or refresh).'),
  ip: z.string().nullable().describe('The address the device asked from.'),
  last_used_ip: z.string().nullable(),
});
export type ApprovedDeviceView = z.infer<typeof approvedDeviceView>;

export const approvedDevicesList = z
  .object({ data: z.array(approvedDeviceView) })
  .describe('The devices the caller approved.');
export const deviceAuthorizationParams = z.object({ id: z.guid() });
