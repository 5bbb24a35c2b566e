import type { UsersTable } from '../../db/tables.js';
import { auditPicture } from '../../kernel/audit.js';

/**
 * What a user's audit rows keep: the status a lifecycle change moves, and the profile fields a
 * staff edit changes. Never the email address, sign-in provider or avatar (personal data the
 * audit trail outlives), nor the status bookkeeping the audit row itself is.
 */
export const userPicture = auditPicture<UsersTable>({
  id: false,
  email: false,
  display_name: true,
  provider: false,
  status: true,
  created_at: false,
  updated_at: false,
  last_seen_at: false,
  tier: true,
  metadata: true,
  status_reason: false,
  status_changed_at: false,
  status_changed_by: false,
  deleted_at: false,
  tokens_valid_after: false,
  locale: false,
  timezone: false,
  profile_updated_at: false,
  avatar_key: false,
});
