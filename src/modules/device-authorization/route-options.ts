// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
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

export const startDeviceAuthorization = {
  config: { rateLimit: 'deviceCode' },
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
} as const;

export const pollDeviceToken = {
  config: { rateLimit: 'deviceToken' },
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
} as const;

export const approveMyDevice = {
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
} as const;

export const listMyDeviceAuthorizations = {
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
} as const;

export const revokeMyDeviceAuthorization = {
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
} as const;
