import { asInstant, auditPicture } from '../../../kernel/audit.js';
import type { EmailSuppressionsTable } from '../tables.js';

/** What a suppression's audit rows keep: the address, why and since when. */
export const suppressionPicture = auditPicture<EmailSuppressionsTable>({
  email: true,
  reason: true,
  source: true,
  message_id: false,
  created_at: asInstant,
});
