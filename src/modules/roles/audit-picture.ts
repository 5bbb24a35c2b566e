import type { RolesTable } from '../../db/tables.js';
import { auditPicture } from '../../kernel/audit.js';

/** What a role's audit rows keep: its names and its permission keys (sorted, as the service hands them). */
export const rolePicture = auditPicture<RolesTable & { permissions: readonly string[] }>({
  id: false,
  key: true,
  name: true,
  description: true,
  is_protected: false,
  created_at: false,
  updated_at: false,
  permissions: true,
});
