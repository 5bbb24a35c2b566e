// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { ACTING_ABOVE_REFUSAL } from './policy.js';
import {
  banUserBody,
  deleteUserBody,
  identityAccountBody,
  listUsersQuery,
  signOutUserBody,
  unbanUserBody,
  updateUserBody,
  userDetail,
  userIdParams,
  usersPage,
} from './schemas.js';

const noContent = { 204: z.null().describe('Done') };
const tags = ['users'];
const guarded = `Refused with 404 \`not_found\` (no such user), 422 \`invalid_request\` for your own account, \
${ACTING_ABOVE_REFUSAL}, 502 \`auth_service_error\` when the identity provider refuses or fails (then nothing \
changes).`;

export const listAdminUsers = {
  config: { perms: ['users.read'] },
  schema: {
    operationId: 'listAdminUsers',
    tags,
    summary: 'List users',
    description:
      "Paged with total. Filters are the broadcast segment's (each narrows; all combine); without `status` " +
      'every status is listed. Sort by `created_at` (default, newest first), `last_seen_at` (never-seen last) ' +
      'or `email`.',
    querystring: listUsersQuery,
    response: { 200: usersPage },
  },
} as const;

export const getAdminUser = {
  config: { perms: ['users.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getAdminUser',
    tags,
    summary: 'Get a user',
    description:
      'Profile, status history, tier, unexpired role grants, subscription summary and recent audit entries. ' +
      '404 `not_found`.',
    params: userIdParams,
    response: { 200: userDetail },
  },
} as const;

export const getAdminUserIdentity = {
  config: { perms: ['users.read'], errors: { 404: ['not_found'], 502: ['auth_service_error'] } },
  schema: {
    operationId: 'getAdminUserIdentity',
    tags,
    summary: "The identity provider's record of a user",
    description:
      'Sign-in methods, ban and last sign-in as the identity provider holds them. 404 `not_found` when the ' +
      "user or the provider's record is missing (the embedded `local` provider keeps none); 502 " +
      '`auth_service_error` when the provider fails.',
    params: userIdParams,
    response: { 200: identityAccountBody },
  },
} as const;

export const updateAdminUser = {
  config: { perms: ['users.write'], errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
  schema: {
    operationId: 'updateAdminUser',
    tags,
    summary: "Edit a user's display name, tier or metadata",
    description:
      `Returns the user. 404 \`not_found\`; ${ACTING_ABOVE_REFUSAL}; 422 \`invalid_request\` for an unknown ` +
      `tier; 422 \`invalid_state\` for a deleted user. An edit that changes nothing is not audited.`,
    params: userIdParams,
    body: updateUserBody,
    response: { 200: userDetail },
  },
} as const;

export const banAdminUser = {
  config: {
    errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'], 502: ['auth_service_error'] },
    perms: ['users.write'],
  },
  schema: {
    operationId: 'banAdminUser',
    tags,
    summary: 'Ban a user',
    description:
      "Disables sign-in at the identity provider; the user's tokens are refused from their next request. Only " +
      'an active user, not yourself, and not the last active owner. In depth: ' +
      '[docs/api/users.md](docs/api/users.md#ban-a-user).',
    params: userIdParams,
    body: banUserBody,
    response: noContent,
  },
} as const;

export const unbanAdminUser = {
  config: {
    errors: { 404: ['not_found'], 422: ['invalid_state'], 502: ['auth_service_error'] },
    perms: ['users.write'],
  },
  schema: {
    operationId: 'unbanAdminUser',
    tags,
    summary: 'Lift a ban',
    description: `422 \`invalid_state\` unless banned. ${guarded}`,
    params: userIdParams,
    body: unbanUserBody,
    response: noContent,
  },
} as const;

export const signOutAdminUser = {
  config: {
    perms: ['users.write'],
    errors: { 404: ['not_found'], 422: ['invalid_request'], 502: ['auth_service_error'] },
  },
  schema: {
    operationId: 'signOutAdminUser',
    tags,
    summary: 'Sign a user out',
    description:
      `Ends every sign-in session (tokens issued until now answer 401 \`invalid_token\`), or with \`session_id\` ` +
      `only that one (tokens carrying that \`session_id\` claim). ${guarded}`,
    params: userIdParams,
    body: signOutUserBody,
    response: noContent,
  },
} as const;

export const deleteAdminUser = {
  config: {
    errors: { 404: ['not_found'], 422: ['invalid_request'], 502: ['auth_service_error'] },
    perms: ['users.delete'],
  },
  schema: {
    operationId: 'deleteAdminUser',
    tags,
    summary: 'Delete a user',
    description:
      'Soft-deletes the user (refused from then on), or with `hard: true` removes the account at the identity ' +
      'provider and every row the user owns. JSON body despite DELETE; the last active owner cannot be ' +
      'deleted. In depth: [docs/api/users.md](docs/api/users.md#delete-a-user).',
    params: userIdParams,
    body: deleteUserBody,
    response: noContent,
  },
} as const;
