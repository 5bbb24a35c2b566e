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
            'The launcher asks for a `device_code` to poll with and a `user_code` the player enters at ' +
            '`verification_uri`; both live 600 s. Errors are OAuth bodies. In depth: ' +
            '[docs/api/device-authorization.md](docs/api/device-authorization.md#start-a-device-authorization-rfc-8628-section-31).',
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
            'The launcher polls with its `device_code` until the player decides, then gets tokens once; ' +
            '`grant_type=refresh_token` renews them. Errors are OAuth bodies, and the rate limit answers 400 ' +
            '`slow_down`, not 429. In depth: ' +
            '[docs/api/device-authorization.md](docs/api/device-authorization.md#poll-a-device-authorization-or-refresh-its-tokens-rfc-8628-section-34).',
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
          'The player enters the code their launcher shows: `inspect` shows which device asked, `approve` lets it ' +
          'sign in as the caller, `deny` refuses it. A decision is final. In depth: ' +
          '[docs/api/device-authorization.md](docs/api/device-authorization.md#inspect-approve-or-deny-a-device-code).',
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
