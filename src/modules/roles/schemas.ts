import { z } from 'zod';
import { isoDateTime } from '../../lib/instant.js';
import { pageQuery, pagedResponse } from '../../kernel/pagination.js';

export const roleKey = z.string().regex(/^[a-z][a-z0-9_.-]{0,47}$/, 'key must match ^[a-z][a-z0-9_.-]{0,47}$');
export const permissionKeys = z.array(z.string().min(1).max(100)).max(200);

export const roleIdParams = z.object({ id: z.guid() });

export const roleBody = z
  .object({
    id: z.guid(),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    protected: z.boolean().describe('Built-in roles cannot be changed or deleted.'),
    permissions: z.array(z.string()),
    member_count: z.number().int().describe('Users holding an unexpired grant of this role.'),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'Role', description: 'A role: its permissions and how many users hold it.' });
export type RoleView = z.infer<typeof roleBody>;

export const listRolesQuery = pageQuery(['key', 'name', 'created_at'], { field: 'key', direction: 'asc' });
export type ListRolesQuery = z.infer<typeof listRolesQuery>;
export const rolesPage = pagedResponse(roleBody);

export const createRoleBody = z
  .object({
    key: roleKey,
    name: z.string().trim().min(1).max(100),
    description: z.string().max(500).optional(),
    permissions: permissionKeys.optional(),
  })
  .strict();
export type CreateRoleInput = z.infer<typeof createRoleBody>;

export const updateRoleBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(500).nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { error: 'provide at least one of name, description' });
export type UpdateRoleInput = z.infer<typeof updateRoleBody>;

export const setPermissionsBody = z
  .object({ keys: permissionKeys })
  .strict()
  .meta({ examples: [{ keys: ['users.read', 'support.*', 'audit.read'] }] });

export const deleteRoleQuery = z.object({ reason: z.string().max(300).optional() });

export const permissionCatalogBody = z
  .object({
    data: z.array(z.object({ key: z.string(), resource: z.string(), description: z.string() })),
    wildcards: z.array(z.string()).describe('Grantable wildcards: `*` and `<resource>.*`.'),
  })
  .describe('Every permission staff can be granted, and the grantable wildcards.');

export const bulkRolesBody = z
  .object({
    user_ids: z.array(z.guid()).min(1).max(500),
    role_key: z.string().min(1).max(48),
    action: z.enum(['grant', 'revoke']),
    expires_at: isoDateTime().optional(),
    reason: z.string().max(300).optional(),
  })
  .strict()
  .meta({
    examples: [
      {
        user_ids: ['0f8b6c2e-1d3a-4b5c-8e7f-9a0b1c2d3e4f', '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d'],
        role_key: 'beta-tester',
        action: 'grant',
        expires_at: '2027-03-01T00:00:00Z',
        reason: 'Winter beta cohort',
      },
    ],
  });
export type BulkRolesInput = z.infer<typeof bulkRolesBody>;

export const bulkResultsBody = z
  .object({
    results: z.array(z.object({ user_id: z.guid(), ok: z.boolean(), error: z.string().optional() })),
  })
  .describe('One result per user, in the order given: `ok`, or the `error` that refused it.')
  .meta({
    examples: [
      {
        results: [
          { user_id: '0f8b6c2e-1d3a-4b5c-8e7f-9a0b1c2d3e4f', ok: true },
          { user_id: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d', ok: false, error: '23503' },
        ],
      },
    ],
  });
