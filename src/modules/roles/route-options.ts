// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { idResult } from '../../kernel/answers.js';
import {
  bulkResultsBody,
  bulkRolesBody,
  createRoleBody,
  deleteRoleQuery,
  listRolesQuery,
  permissionCatalogBody,
  roleBody,
  roleIdParams,
  rolesPage,
  setPermissionsBody,
  updateRoleBody,
} from './schemas.js';
import { UNHELD_ROLE_KEYS_REFUSAL } from './policy.js';

const noContent = { 204: z.null().describe('Done') };
const tags = ['roles'];

export const listAdminRoles = {
  config: { perms: ['roles.read'] },
  schema: {
    operationId: 'listAdminRoles',
    tags,
    summary: 'List roles',
    querystring: listRolesQuery,
    response: { 200: rolesPage },
  },
} as const;

export const createAdminRole = {
  config: { perms: ['roles.write'], errors: { 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createAdminRole',
    tags,
    summary: 'Create a role',
    description: `${UNHELD_ROLE_KEYS_REFUSAL}. A taken key is 409 \`conflict\`.`,
    body: createRoleBody,
    response: { 201: idResult },
  },
} as const;

export const getAdminRole = {
  config: { perms: ['roles.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getAdminRole',
    tags,
    summary: 'Get a role',
    params: roleIdParams,
    response: { 200: roleBody },
  },
} as const;

export const updateAdminRole = {
  config: { perms: ['roles.write'], errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'updateAdminRole',
    tags,
    summary: 'Rename or describe a role',
    description: `Protected roles answer 422 \`invalid_request\`; ${UNHELD_ROLE_KEYS_REFUSAL}.`,
    params: roleIdParams,
    body: updateRoleBody,
    response: noContent,
  },
} as const;

export const setAdminRolePermissions = {
  config: { perms: ['roles.write'], errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'setAdminRolePermissions',
    tags,
    summary: "Replace a role's permissions",
    description:
      `Replaces the whole list. 404 \`not_found\`; 409 \`conflict\` when a key is listed twice; 422 ` +
      `\`invalid_request\` for an unknown key or a protected role; ${UNHELD_ROLE_KEYS_REFUSAL}: a key you lack ` +
      `can be neither added, nor removed, nor kept.`,
    params: roleIdParams,
    body: setPermissionsBody,
    response: noContent,
  },
} as const;

export const deleteAdminRole = {
  config: { perms: ['roles.write'], errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'deleteAdminRole',
    tags,
    summary: 'Delete a role',
    description:
      `404 \`not_found\`; ${UNHELD_ROLE_KEYS_REFUSAL}; 409 \`conflict\` while users hold an unexpired grant of ` +
      `it (\`details.active_grants\`); 422 \`invalid_request\` for a protected role.`,
    params: roleIdParams,
    querystring: deleteRoleQuery,
    response: noContent,
  },
} as const;

export const listAdminPermissions = {
  config: { perms: ['roles.read'] },
  schema: {
    operationId: 'listAdminPermissions',
    tags,
    summary: 'The permission catalog',
    response: { 200: permissionCatalogBody },
  },
} as const;

export const bulkAssignAdminUserRoles = {
  config: { perms: ['roles.assign'], errors: { 422: ['invalid_request'] } },
  schema: {
    operationId: 'bulkAssignAdminUserRoles',
    tags,
    summary: 'Grant or revoke a role for many users',
    description:
      'Grants or revokes one role for many users: always 200 with one result per user (`ok: false` with a ' +
      'SQLSTATE for a user that failed). Refused whole with 403 `forbidden` when the role or a named user ' +
      'holds a permission you do not. In depth: ' +
      '[docs/api/roles.md](docs/api/roles.md#grant-or-revoke-a-role-for-many-users).',
    body: bulkRolesBody,
    response: { 200: bulkResultsBody },
  },
} as const;
