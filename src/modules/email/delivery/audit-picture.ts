import { auditPicture } from '../../../kernel/audit.js';
import type { EmailMessagesTable } from '../tables.js';

/** What a message's audit rows keep: its place in the queue, never its content or variables. */
export const messagePicture = auditPicture<EmailMessagesTable>({
  id: false,
  to_email: false,
  user_id: false,
  category: false,
  template_id: false,
  template_version: false,
  vars: false,
  subject: false,
  html: false,
  text: false,
  campaign_id: false,
  broadcast_id: false,
  status: true,
  held: false,
  attempts: true,
  next_attempt_at: false,
  lease_until: false,
  last_error: true,
  transport: false,
  transport_message_id: false,
  created_at: false,
  sent_at: false,
});
