import { auditPicture } from '../../kernel/audit.js';
import type { SupportTicketsTable } from './tables.js';

/** What a ticket's audit rows keep: where it stands, never what the player wrote. */
export const ticketPicture = auditPicture<SupportTicketsTable>({
  id: false,
  user_id: false,
  subject: false,
  category: false,
  status: true,
  updated_at: false,
  closed_at: false,
  closed_by: false,
  close_reason: true,
  created_at: false,
});
