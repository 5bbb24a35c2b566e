import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicBaseUrlOf } from '../../config.js';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { parseFormBody } from '../email/unsubscribe/index.js';
import { DeviceApprovalService } from './approvals.js';
import { DeviceFlowService, POLL_INTERVAL_SECONDS, type DeviceClientContext } from './device-flow.js';
import { oauthErrorHandler } from './oauth-errors.js';
import {
  approveBody,
  approvedDevicesList,
  deviceAuthorizationParams,
  deviceCodeBody,
  deviceCodeResult,
  deviceRequestView,
  oauthErrorBody,
  tokenBody,
  tokenResult,
} from './schemas.js';

const publicTags = ['device authorization'];
const meTags = ['me: devices'];
/** OAuth parameters are a few hundred bytes. */
const FORM_BODY_LIMIT_BYTES = 4_096;
/** RFC 6749 section 5.1: answers carrying credentials must not be cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const JWKS_ONLY =
  'A deployment without `JWT_SECRET` (JWKS only: tokens come from the identity provider, which this service ' +
  'cannot sign for) answers 400 `unsupported_grant_type`: the launcher signs in through the identity provider ' +
  'instead.';

/**
 * RFC 8628 device authorization for the launcher: the public code and token endpoints (OAuth
 * bodies, form or JSON), and the player's approval, device list and revocation under /v1/me.
 */
export function registerDeviceAuthorizationRoutes(app: ZodApp, deps: Deps<'config' | 'db' | 'write'>): void {
  const { config } = deps;
  const verificationUri = `${publicBaseUrlOf(config)}/device`;
  const flow = new DeviceFlowService(deps.db, deps.write, { jwtSecret: config.jwtSecret, verificationUri });
  const approvals = new DeviceApprovalService(deps.db, deps.write);

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // OAuth clients post forms (RFC 6749 section 4.1.3); JSON is accepted too. Only in this scope.
    plain.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
      (request, body, done) => done(null, parseFormBody(String(request.headers['content-type']), body as string)),
    );
    const errorHandler = oauthErrorHandler(POLL_INTERVAL_SECONDS);

    scope.post(
      '/v1/public/device/code',
      {
        config: { rateLimit: 'deviceCode' },
        errorHandler,
        schema: {
          tags: publicTags,
          operationId: 'startDeviceAuthorization',
          summary: 'Start a device authorization (RFC 8628 section 3.1)',
          description:
            `The launcher asks for codes: \`client_id\` (\`launcher\`) and an optional \`scope\`, form-encoded or ` +
            `JSON. Answers the \`device_code\` to poll \`POST /v1/public/device/token\` with, and the \`user_code\` ` +
            `(\`XXXX-XXXX\`, 8 letters from BCDFGHJKLMNPQRSTVWXZ) the player enters at \`verification_uri\` ` +
            `(\`<PUBLIC_BASE_URL>/device\`, the site's page that calls \`POST /v1/me/device/approve\`). Both live ` +
            `600 s; poll every \`interval\` (5) seconds. The requester's address and User-Agent are kept to show ` +
            `the player. Errors are OAuth bodies \`{ error, error_description? }\`: 400 \`invalid_client\` (unknown ` +
            `\`client_id\`), \`invalid_request\` (a missing or malformed parameter), \`unsupported_grant_type\` ` +
            `(see below). ${JWKS_ONLY}`,
          body: deviceCodeBody,
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          response: {
            200: deviceCodeResult,
            400: oauthErrorBody.describe('OAuth error: `invalid_client`, `invalid_request`, `unsupported_grant_type`'),
          },
        },
      },
      async (request, reply) => {
        const answer = await flow.requestCode(request.body, clientContext(request));
        return reply.headers(NO_STORE).send(answer);
      },
    );

    scope.post(
      '/v1/public/device/token',
      {
        config: { rateLimit: 'deviceToken' },
        errorHandler,
        schema: {
          tags: publicTags,
          operationId: 'pollDeviceToken',
          summary: 'Poll a device authorization, or refresh its tokens (RFC 8628 section 3.4)',
          description:
            `Form-encoded or JSON. With \`grant_type=${'urn:ietf:params:oauth:grant-type:device_code'}\`, ` +
            `\`device_code\` and \`client_id\`: while the player has not decided, 400 \`authorization_pending\`; ` +
            `polled sooner than the interval after the previous poll, 400 \`slow_down\` with \`interval\`, the new ` +
            `interval, 5 s longer for this and every later poll; the player denied, 400 \`access_denied\` (also ` +
            `when the account was banned, deleted or signed out everywhere since approving); past its 600 s, 400 ` +
            `\`expired_token\`; unknown, already exchanged, revoked, or issued to another \`client_id\`, 400 ` +
            `\`invalid_grant\`. Approved: 200 with tokens, exactly once. The access token is an HS256 JWT in the ` +
            `identity provider's format (\`sub\` = the player, \`aud: authenticated\`, \`session_id\` = this ` +
            `device's session, \`client_id\`, \`amr\` \`device_code\`), valid 3600 s; it works on every route as ` +
            `the player. With \`grant_type=refresh_token\`, \`refresh_token\` and \`client_id\`: a new access token ` +
            `for the same session and a new refresh token (the old one dies); 400 \`invalid_grant\` once the device ` +
            `is revoked (\`DELETE /v1/me/device-authorizations/{id}\`), its session ended, or the account banned, ` +
            `deleted or signed out everywhere. Any other \`grant_type\`: 400 \`unsupported_grant_type\`; a missing ` +
            `parameter: 400 \`invalid_request\`. ${JWKS_ONLY} More than 30 requests a minute from one address: 400 ` +
            `\`slow_down\` with \`interval\` (at least 10, and until the address's minute ends) and ` +
            `\`Retry-After\`, not 429.`,
          body: tokenBody,
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          response: {
            200: tokenResult,
            400: oauthErrorBody.describe(
              'OAuth error: `authorization_pending`, `slow_down` (with `interval`), `access_denied`, ' +
                '`expired_token`, `invalid_grant`, `unsupported_grant_type`, `invalid_request`',
            ),
          },
        },
      },
      async (request, reply) => {
        const tokens = await flow.token(request.body, clientContext(request));
        return reply.headers(NO_STORE).send(tokens);
      },
    );
  });

  app.post(
    '/v1/me/device/approve',
    {
      config: { errors: { 404: ['not_found'], 422: ['invalid_state'] }, rateLimit: 'deviceApprove' },
      schema: {
        operationId: 'approveMyDevice',
        tags: meTags,
        summary: 'Inspect, approve or deny a device code',
        description:
          'The player enters the code their launcher shows (any case, with or without the dash). `inspect` ' +
          "answers which client asked, when, from which address and User-Agent, with the code's status, and " +
          'changes nothing; `approve` lets that device sign in as the caller, `deny` refuses it; both answer the ' +
          'request with its new status and are audited (`device_authorization.approve` / `.deny`). A decision is ' +
          'final: deciding a code already decided answers 422 `invalid_state`, except the same player repeating ' +
          'their own decision (answered as done). Errors: 404 `not_found` for a code that is malformed, unknown ' +
          'or expired (every guess counts toward the limit).',
        body: approveBody,
        response: { 200: deviceRequestView },
      },
    },
    (request) => approvals.decide(actorOf(request), request.body),
  );

  app.get(
    '/v1/me/device-authorizations',
    {
      schema: {
        operationId: 'listMyDeviceAuthorizations',
        tags: meTags,
        summary: "The caller's approved devices",
        description:
          'Devices the caller approved and has not revoked, newest approval first: the client, when approved, ' +
          'whether it has collected its tokens, when and from where it last got tokens, and where it asked from. ' +
          'A device whose session was ended elsewhere (`DELETE /v1/me/sessions/{id}`, staff sign-out) is gone ' +
          'from the list; one approved but never collected drops off when its code expires.',
        response: { 200: approvedDevicesList },
      },
    },
    async (request) => ({ data: await approvals.list(actorOf(request).userId) }),
  );

  app.delete(
    '/v1/me/device-authorizations/:id',
    {
      config: { errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'revokeMyDeviceAuthorization',
        tags: meTags,
        summary: 'Revoke an approved device',
        description:
          'Signs the device out: its refresh token is refused from now on, and its session is ended, so access ' +
          'tokens it holds are refused (401 `invalid_token`) from the next request. Audited ' +
          "(`device_authorization.revoke`). 404 `not_found` for an id that is not one of the caller's listed " +
          "devices (another player's, unknown, or already revoked).",
        params: deviceAuthorizationParams,
        response: { 204: z.null().describe('Revoked') },
      },
    },
    async (request, reply) => {
      await approvals.revoke(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}

function clientContext(request: { ip?: string; headers: Record<string, unknown> }): DeviceClientContext {
  const userAgent = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
