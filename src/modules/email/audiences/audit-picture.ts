import { auditPicture } from '../../../kernel/audit.js';
import type { EmailAudienceMembersTable, EmailAudiencesTable } from './tables.js';

/** What an audience's audit rows keep: its names, and how many members a delete took with it. */
export const audiencePicture = auditPicture<EmailAudiencesTable & { member_count: number }>({
  id: false,
  name: true,
  description: true,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
  member_count: true,
});

/** A member as a removal's audit row names it. */
export const audienceMemberPicture = auditPicture<EmailAudienceMembersTable>({
  id: { key: 'member_id' },
  audience_id: false,
  email: true,
  user_id: true,
  created_at: false,
});
