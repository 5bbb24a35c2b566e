import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { recordAuditMany } from '../../kernel/audit.js';
import { ensureUsers } from '../users/index.js';
import { grantUnexpiringRole } from './queries.js';

export const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

/**
 * Grants the built-in owner role to these subjects at start (BOOTSTRAP_OWNER), creating their
 * user rows if they have never signed in. Idempotent: a restart changes nothing and audits nothing.
 */
export async function grantBootstrapOwners(db: Kysely<Tables>, subjects: string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    await ensureUsers(trx, subjects);
    const granted = await grantUnexpiringRole(trx, OWNER_ROLE_ID, subjects, 'BOOTSTRAP_OWNER');
    await recordAuditMany(
      trx,
      { userId: null, requestId: null, ip: null, userAgent: null },
      granted.map((userId) => ({
        action: 'users.role_grant',
        targetType: 'user',
        targetId: userId,
        reason: 'BOOTSTRAP_OWNER',
        extra: { role_key: 'owner', role_id: OWNER_ROLE_ID, expires_at: null },
      })),
    );
    return granted;
  });
}
